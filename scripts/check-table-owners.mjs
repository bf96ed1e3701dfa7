// Every table has one owner, and only its owner's files name it in SQL (issue 26). The owner
// writes every statement on its tables and lends the rest of the code what it may read through
// exported fragments (WebhookSql, HealthSql, UserSql) or its repository's methods; so a change
// to a table is a change to its owner's files, and a reviewer finds all its SQL there. Run by
// `npm run lint`, as check-import-cycles.mjs is.
//
// The rule: in src/ (specs, migrations and entities aside), a string literal or a piece of a
// template literal that names a table where SQL puts one (after FROM, JOIN, INTO, UPDATE or
// TABLE), or a call's argument that is a table's name alone (a dialect helper's,
// `insertUnlessExists('webhook_health', …)`), must be in a file of that table's owner. Every
// entity's table must have an owner here.
//
// Its limits: it reads literals, so a table name built at run time (joined from pieces, read
// from a variable defined in an owner's file and used elsewhere) is not seen; it checks tables,
// not columns, so a column of another owner's table read through an alias its fragment
// introduced (`h.breaker_open_until` after HealthSql.joinedOn) passes: the fragments name the
// columns too, and review keeps them the way in. Migrations and entities are the schema, which
// database/ and each feature's entities describe whole.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Table → its owner: the folder (ending in /) or the files, relative to src/, whose SQL may name it. */
export const TABLE_OWNERS = {
  organizations: 'identity/',
  users: 'identity/',
  members: 'identity/',
  sessions: 'identity/',
  access_tokens: 'identity/',
  platform_keys: 'identity/',
  platform_key_organizations: 'identity/',
  operator_audit_entries: 'identity/',
  webhook_sources: 'webhooks/',
  webhooks: 'webhooks/',
  audit_entries: 'audit/',
  cards: 'cards/',
  issuers: 'cards/',
  // The queue's tables, shared by the four parts of the delivery feature (events in, dispatch, log, recovery).
  events: 'delivery/',
  deliveries: 'delivery/',
  delivery_attempts: 'delivery/',
  delivery_recoveries: 'delivery/recovery/',
  // Endpoint health's statements, and the fragments it lends (at the feature's root: ingest may not import the dispatcher).
  webhook_health: ['delivery/dispatch/endpoint-health.repository.ts', 'delivery/webhook-health-sql.ts'],
};

const SQL_TABLE_POSITION = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+([a-z_][a-z0-9_]*)/g;

/** Each string literal and template piece of a TypeScript file, with its line, and whether it is a call's argument. */
function literalsOf(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      const argument = ts.isCallExpression(node.parent) && node.parent.arguments.includes(node);
      found.push({ text: node.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, argument });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The tables a literal names as SQL does, or by itself as a call's argument. */
function tablesIn({ text, argument }) {
  if (argument && Object.hasOwn(TABLE_OWNERS, text)) return [text];
  return [...text.matchAll(SQL_TABLE_POSITION)].map(([, name]) => name).filter((name) => Object.hasOwn(TABLE_OWNERS, name));
}

const ownedBy = (table, file) =>
  [TABLE_OWNERS[table]].flat().some((owner) => (owner.endsWith('/') ? file.startsWith(owner) : file === owner));

/** The problems of the .ts files under `srcRoot`: names of tables outside their owners' files, and tables without an owner. */
export function tableOwnershipProblems(srcRoot) {
  const files = readdirSync(srcRoot, { recursive: true })
    .map((file) => file.split('\\').join('/'))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.startsWith('database/migrations/'));
  const problems = [];
  for (const file of files) {
    const text = readFileSync(join(srcRoot, file), 'utf8');
    if (file.endsWith('.entity.ts')) {
      for (const [, table] of text.matchAll(/@Entity\('([a-z_]+)'\)/g)) {
        if (!Object.hasOwn(TABLE_OWNERS, table)) problems.push(`${file}: table ${table} has no owner in scripts/check-table-owners.mjs`);
      }
      continue;
    }
    for (const literal of literalsOf(file, text)) {
      for (const table of tablesIn(literal)) {
        if (!ownedBy(table, file)) problems.push(`${file}:${literal.line}: ${table} belongs to ${[TABLE_OWNERS[table]].flat().join(', ')}`);
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const srcRoot = process.argv[2] ?? fileURLToPath(new URL('../src', import.meta.url));
  const problems = tableOwnershipProblems(srcRoot);
  if (problems.length > 0) {
    process.stderr.write(
      `SQL naming another owner's table in ${relative(process.cwd(), srcRoot) || '.'} (read it through the owner's fragments or repository):\n` +
        problems.map((problem) => `  ${problem}`).join('\n') +
        '\n',
    );
    process.exit(1);
  }
}
