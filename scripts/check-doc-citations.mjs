// Every section of docs/api.md that the code and the other pages cite exists (issue 31). Comments
// cite the contract by section number (`docs/api.md 10.7`, `(docs/api.md 3, 8, 10.1)`,
// `docs/api.md 10.1-10.6`), hundreds of them, and nothing else notices when a section is
// renumbered or removed, or cited before it is written. Run by `npm run lint`, as
// check-table-owners.mjs is.
//
// The rule: in src/, test/, bench/ and docs/, the number after `docs/api.md` (a comment may wrap
// between the two), and each further number of its list (after a comma, `and`, `or`, or a
// range's dash), must be a heading of docs/api.md: `## 5. Webhooks` is section 5, `### 10.14
// Recovery…` section 10.14, and a citation of 10.1.1 passes once a `10.1.1` heading exists.
//
// Its limits: a list's further number counts only when a closing mark, a comma, `and`, `or`, an
// opening parenthesis or the line's end follows it, so that `docs/api.md 10.1, 256 KiB` cites
// 10.1 alone and `docs/api.md 5.1, rules 1-5` 5.1 alone; a list that wraps after its comma is
// read up to the wrap; a section cited without the file's name (`10.7 says`) is not seen.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOTS = ['src', 'test', 'bench', 'docs'];
const TEXT_FILES = /\.(?:ts|mts|cts|js|mjs|cjs|md|json|sql)$/;
const SECTION = String.raw`\d+(?:\.\d+)*`;
/** `docs/api.md` and its first section, over a line break and the next line's comment mark if the text wraps there. */
const CITATION = new RegExp(String.raw`docs/api\.md(?:[ \t]+|[ \t]*\r?\n[ \t]*(?:\*|//|#)?[ \t]*)(${SECTION})`, 'g');
/** A further section of the same list, at the start of the text after the last one read. */
const NEXT_IN_LIST = new RegExp(String.raw`^(?:, ?| and | or | ?[-–] ?)(${SECTION})(?=[)\],.;:'"\x60]| \(| and | or |[ \t]*(?:\r?\n|$))`);
/** A heading's section number: `## 5. Webhooks`, `### 5.1 URL rules`. */
const HEADING = new RegExp(String.raw`^#{2,6}[ \t]+(${SECTION})\.?[ \t]`, 'gm');

/** The section numbers docs/api.md has headings for. */
function sectionsOf(api) {
  return new Set([...api.matchAll(HEADING)].map(([, section]) => section));
}

/** Each section the text cites, with the line it is on (1-based). */
function citationsIn(text) {
  const found = [];
  const lineAt = (index) => text.slice(0, index).split('\n').length;
  for (const match of text.matchAll(CITATION)) {
    let at = match.index + match[0].length - match[1].length;
    let section = match[1];
    for (;;) {
      found.push({ section, line: lineAt(at) });
      const rest = text.slice(at + section.length);
      const next = rest.match(NEXT_IN_LIST);
      if (next === null) break;
      at += section.length + next.index + next[0].length - next[1].length;
      section = next[1];
    }
  }
  return found;
}

/** `file:line: docs/api.md N has no heading` for each citation under `root` of a section docs/api.md lacks. */
function citationProblems(root) {
  const sections = sectionsOf(readFileSync(join(root, 'docs/api.md'), 'utf8'));
  const problems = [];
  for (const folder of ROOTS) {
    const files = readdirSync(join(root, folder), { recursive: true })
      .map((file) => join(folder, file).split('\\').join('/'))
      .filter((file) => TEXT_FILES.test(file))
      .sort();
    for (const file of files) {
      for (const { section, line } of citationsIn(readFileSync(join(root, file), 'utf8'))) {
        if (!sections.has(section)) problems.push(`${file}:${line}: docs/api.md ${section} has no heading`);
      }
    }
  }
  return problems;
}

const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
const problems = citationProblems(root);
if (problems.length > 0) {
  process.stderr.write(
    `Citations of docs/api.md sections that it has no heading for, in ${relative(process.cwd(), root) || '.'}:\n` +
      problems.map((problem) => `  ${problem}`).join('\n') +
      '\n',
  );
  process.exit(1);
}
