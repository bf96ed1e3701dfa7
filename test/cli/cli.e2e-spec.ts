import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import SqliteDatabase from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, describeEachDatabase, TestDatabase } from '../support/databases';
import { CliResult, runCli, startServer, waitForHealthy } from '../support/processes';
import { freePort } from '../support/ports';
import { migrationNames } from '../support/migrations';

// docs/api.md 8: the operator CLI as operators run it (`node dist/cli.js ...`), on each database.
// Success: one JSON object on stdout, exit 0. Failure: one {code, message} on stderr,
// nothing on stdout, exit non-zero.

const SESSION_COOKIE = '__Secure-auth.session_token';
const SEVEN_DAYS_MS = 7 * 24 * 3600 * 1000;
const MINUTE_MS = 60_000;
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;
/** docs/api.md 3: >= 256 random bits, URL-safe. */
const TOKEN = /^[A-Za-z0-9_-]{43,}$/;
/** CLI runs are CPU-bound (~1.5 s of module loading each): run together, they wait for each other. */
const CONCURRENT_TIMEOUT_MS = 90_000;

const email = (): string => `${randomBytes(6).toString('hex')}@example.test`;
const unknownToken = (): string => randomBytes(32).toString('base64url');

function parseObject(text: string, what: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${what} is not exactly one JSON value: ${JSON.stringify(text)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`${what} is not a JSON object: ${JSON.stringify(text)}`);
  }
  return value as Record<string, unknown>;
}

/** A successful run: exit 0 and exactly one JSON object on stdout. */
function succeeded(result: CliResult): Record<string, unknown> {
  expect(result.code, `exit code (stdout: ${JSON.stringify(result.stdout)}, stderr: ${JSON.stringify(result.stderr)})`).toBe(0);
  return parseObject(result.stdout, 'stdout');
}

/** A failed run: exit ≠ 0, nothing on stdout, exactly one {code, message} on stderr. */
function failed(result: CliResult): { code: string; message: string } {
  expect(result.code, `exit code (stdout: ${result.stdout})`).not.toBe(0);
  expect(result.stdout).toBe('');
  const failure = parseObject(result.stderr, 'stderr');
  expect(Object.keys(failure).sort()).toEqual(['code', 'message']);
  expect(failure.code).toEqual(expect.stringMatching(/\S/));
  expect(failure.message).toEqual(expect.stringMatching(/\S/));
  return failure as { code: string; message: string };
}

function expectId(value: Record<string, unknown>): number {
  expect(value).toEqual({ id: expect.any(Number) });
  const id = value.id as number;
  expect(Number.isInteger(id) && id > 0).toBe(true);
  return id;
}

/** Runs a statement on the throwaway database: the CLI makes no webhooks, and a recovery needs one with a failed delivery. */
async function sql(db: TestDatabase, statement: string, params: (string | number)[] = []): Promise<Record<string, unknown>[]> {
  if (db.kind === 'sqlite') {
    const connection = new SqliteDatabase(db.url.slice('sqlite:'.length));
    try {
      const prepared = connection.prepare(statement);
      return prepared.reader ? (prepared.all(...params) as Record<string, unknown>[]) : (prepared.run(...params), []);
    } finally {
      connection.close();
    }
  }
  const connection = await mysql.createConnection({ uri: db.url });
  try {
    const [rows] = await connection.query(statement, params);
    return Array.isArray(rows) ? (rows as Record<string, unknown>[]) : [];
  } finally {
    await connection.end();
  }
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

describeEachDatabase('operator CLI', (kind) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  const cli = (...args: string[]): Promise<CliResult> => runCli(args, env);

  // The fixture runs are themselves the subject of the first tests below.
  let firstMigrate: CliResult;
  let secondMigrate: CliResult;
  let orgCreate: CliResult;
  let userCreate: CliResult;
  let memberAdd: CliResult;
  let orgId: number;
  let userId: number;
  /** An organization the fixture user is not a member of. */
  let otherOrgId: number;
  let userEmail: string;
  /** A session of the fixture user, for the revoke test. */
  let sessionToken: string;

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    env = { DATABASE_URL: db.url, SECRET_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent' };
    firstMigrate = await cli('migrate');
    secondMigrate = await cli('migrate');
    userEmail = email();
    let otherOrg: CliResult;
    [orgCreate, userCreate, otherOrg] = await Promise.all([
      cli('org', 'create', '--name', 'Acme'),
      cli('user', 'create', '--email', userEmail, '--name', 'Ada'),
      cli('org', 'create', '--name', 'Elsewhere'),
    ]);
    orgId = Number(parseObject(orgCreate.stdout, 'org create').id);
    userId = Number(parseObject(userCreate.stdout, 'user create').id);
    otherOrgId = Number(parseObject(otherOrg.stdout, 'org create').id);
    let session: CliResult;
    [memberAdd, session] = await Promise.all([
      cli('member', 'add', '--org', String(orgId), '--user', String(userId), '--role', 'owner'),
      cli('session', 'create', '--user', String(userId)),
    ]);
    sessionToken = String(parseObject(session.stdout, 'session create').token);
  }, CONCURRENT_TIMEOUT_MS);
  afterAll(async () => {
    await db?.drop();
  });

  describe('commands', () => {
    it('platform-key create prints {"id","token","organizations","expiresAt"}, and revoke --token - takes it from standard input', async () => {
      const created = succeeded(await cli('platform-key', 'create', '--name', 'platform'));
      expect(created).toEqual({ id: expect.any(Number), token: expect.stringMatching(TOKEN), organizations: null, expiresAt: null });
      expect(succeeded(await runCli(['platform-key', 'revoke', '--token', '-'], env, undefined, `${created.token as string}\n`))).toEqual({
        revoked: true,
      });
      expect(failed(await cli('platform-key', 'revoke', '--token', unknownToken())).code).toBe('not found');
    });

    it('platform-key create --org --expires-in, revoke --id, list (never a token) and audit list', async () => {
      const before = Date.now();
      const [created, unknownOrg, unknownId] = await Promise.all([
        cli('platform-key', 'create', '--name', 'billing', '--org', `${otherOrgId},${orgId}`, '--expires-in', '30'),
        cli('platform-key', 'create', '--name', 'nowhere', '--org', `${orgId},999999`),
        cli('platform-key', 'revoke', '--id', '999999'),
      ]);
      const key = succeeded(created);
      const scope = [orgId, otherOrgId].sort((a, b) => a - b);
      expect(key).toEqual({
        id: expect.any(Number),
        token: expect.stringMatching(TOKEN),
        organizations: scope,
        expiresAt: expect.stringMatching(ISO_8601),
      });
      expect(Date.parse(key.expiresAt as string)).toBeGreaterThanOrEqual(before + 30 * 24 * 3600 * 1000 - MINUTE_MS);
      expect(Date.parse(key.expiresAt as string)).toBeLessThanOrEqual(Date.now() + 30 * 24 * 3600 * 1000 + MINUTE_MS);
      expect(failed(unknownOrg)).toEqual({ code: 'not found', message: 'no organization 999999' });
      expect(failed(unknownId).code).toBe('not found');

      expect(succeeded(await cli('platform-key', 'revoke', '--id', String(key.id)))).toEqual({ revoked: true });
      const [list, audit] = await Promise.all([cli('platform-key', 'list'), cli('audit', 'list', '--limit', '2')]);
      expect(list.stdout).not.toContain(key.token as string);
      const { keys } = succeeded(list) as { keys: Record<string, unknown>[] };
      expect(keys.find((listed) => listed.id === key.id)).toEqual({
        id: key.id,
        name: 'billing',
        organizations: scope,
        createdAt: expect.stringMatching(ISO_8601),
        lastUsedAt: null,
        expiresAt: key.expiresAt,
        revokedAt: expect.stringMatching(ISO_8601),
      });
      for (const listed of keys)
        expect(Object.keys(listed).sort()).toEqual(['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'organizations', 'revokedAt']);
      const entry = (action: string) => ({
        id: expect.any(Number),
        at: expect.stringMatching(ISO_8601),
        action,
        platformKey: { id: key.id, name: 'billing' },
        organizations: scope,
      });
      expect(succeeded(audit)).toEqual({ entries: [entry('platform_key.revoked'), entry('platform_key.created')] });
    });

    it('event send prints {"id","deliveries"} and answers a repeated --idempotency-key with the same event', async () => {
      const args = [
        'event',
        'send',
        '--org',
        String(orgId),
        '--type',
        'user.updated',
        '--data',
        '{"user":1}',
        '--idempotency-key',
        'cli-1',
      ];
      const sent = succeeded(await cli(...args));
      expect(sent).toEqual({ id: expect.stringMatching(/^evt_[A-Za-z0-9_-]{22}$/), deliveries: 0 });
      expect(succeeded(await cli(...args))).toEqual(sent);
    });

    it.each([
      ['an unknown type', ['--type', 'card.deleted'], 'bad request'],
      ['data that is not an object', ['--type', 'user.updated', '--data', '[1]'], 'bad request'],
      ['data that is not JSON', ['--type', 'user.updated', '--data', '{nope'], 'usage'],
    ])('event send refuses %s', async (_, extra, code) => {
      expect(failed(await cli('event', 'send', '--org', String(orgId), ...extra)).code).toBe(code);
    });

    it('event send refuses an unknown organization with not found', async () => {
      expect(failed(await cli('event', 'send', '--org', '999999', '--type', 'user.updated')).code).toBe('not found');
    });

    it('event send --file sends a batch by the same path, from a file or from standard input (-), and names a file it cannot read', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cli-batch-'));
      try {
        const events = ['user.updated', 'card.updated'].map((type, i) => ({
          type,
          organization: orgId,
          data: { i },
          idempotencyKey: `cli-batch-${i}`,
        }));
        const body = JSON.stringify({ events });
        writeFileSync(join(dir, 'batch.json'), body);
        const [fromFile, missing] = await Promise.all([
          cli('event', 'send', '--file', join(dir, 'batch.json')),
          cli('event', 'send', '--file', join(dir, 'missing.json')),
        ]);
        const sent = succeeded(fromFile);
        const accepted = { id: expect.stringMatching(/^evt_[A-Za-z0-9_-]{22}$/), deliveries: 0 };
        expect(sent).toEqual({ events: [accepted, accepted] });
        // The same keys again, through standard input: answered as first answered.
        expect(succeeded(await runCli(['event', 'send', '--file', '-'], env, undefined, body))).toEqual(sent);
        expect(failed(missing)).toEqual({ code: 'usage', message: `--file ${join(dir, 'missing.json')}: cannot be read (ENOENT)` });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('webhook recover prints {"deliveries"}, recorded in the operator trail and, with actor null, in the organization\'s', async () => {
      const org = expectId(succeeded(await cli('org', 'create', '--name', 'Recovering')));
      await sql(db, 'INSERT INTO webhook_sources (organization_id) VALUES (?)', [org]);
      const [source] = await sql(db, 'SELECT id FROM webhook_sources WHERE organization_id = ?', [org]);
      await sql(
        db,
        "INSERT INTO webhooks (source_id, name, url, secret, secret_key_id) VALUES (?, 'lost', 'https://hooks.example.com/', 's', 'k')",
        [Number(source.id)],
      );
      const sent = succeeded(await cli('event', 'send', '--org', String(org), '--type', 'card.updated'));
      expect(sent.deliveries).toBe(1);
      await sql(db, "UPDATE deliveries SET state = 'failed', next_attempt_at = NULL WHERE event_id = ?", [sent.id as string]);

      const since = new Date(Date.now() - 3600_000).toISOString();
      expect(succeeded(await cli('webhook', 'recover', '--org', String(org), '--name', 'lost', '--since', since))).toEqual({
        deliveries: 1,
      });
      const [audit, again, unknownWebhook, tooOld, future] = await Promise.all([
        cli('audit', 'list', '--limit', '1'),
        cli('webhook', 'recover', '--org', String(org), '--name', 'lost', '--since', since, '--until', new Date().toISOString()),
        cli('webhook', 'recover', '--org', String(org), '--name', 'missing', '--since', since),
        cli('webhook', 'recover', '--org', String(org), '--name', 'lost', '--since', '2000-01-01T00:00:00Z'),
        cli('webhook', 'recover', '--org', String(org), '--name', 'lost', '--since', since, '--until', '2999-01-01T00:00:00Z'),
      ]);
      expect(succeeded(audit)).toEqual({
        entries: [
          {
            id: expect.any(Number),
            at: expect.stringMatching(ISO_8601),
            action: 'delivery.recovered',
            platformKey: null,
            organizations: [org],
            webhook: 'lost',
          },
        ],
      });
      // the first recovery made the delivery pending (its first batch is the request's): nothing failed is left for the second
      expect(succeeded(again)).toEqual({ deliveries: 0 });
      expect(await sql(db, 'SELECT state FROM deliveries WHERE event_id = ?', [sent.id as string])).toEqual([{ state: 'pending' }]);
      expect(failed(unknownWebhook).code).toBe('not found');
      expect(failed(tooOld)).toEqual({ code: 'bad request', message: expect.stringContaining('since: must be within the last 30 days') });
      expect(failed(future)).toEqual({ code: 'bad request', message: 'until: must not be in the future' });
      const entries = await sql(
        db,
        'SELECT actor_user_id AS actor, action, webhook, fields FROM audit_entries WHERE organization_id = ? ORDER BY id',
        [org],
      );
      expect(entries).toEqual(Array(2).fill({ actor: null, action: 'delivery.recovered', webhook: 'lost', fields: '["since","until"]' }));
    });

    it('webhook recover refuses an unknown organization with not found', async () => {
      expect(failed(await cli('webhook', 'recover', '--org', '999999', '--name', 'lost', '--since', '2026-01-01T00:00:00Z')).code).toBe(
        'not found',
      );
    });

    it('migrate on a fresh database prints the names of the migrations it applied', () => {
      expect(succeeded(firstMigrate)).toEqual({ applied: migrationNames(kind) });
    });

    it('migrate on a migrated database prints {"applied":[]}', () => {
      expect(succeeded(secondMigrate)).toEqual({ applied: [] });
    });

    it('org create prints {"id"}', () => {
      expectId(succeeded(orgCreate));
    });

    it('user create --email --name prints {"id"}', () => {
      expectId(succeeded(userCreate));
    });

    it('member add prints {"org","user","role"} with the given values', () => {
      expect(succeeded(memberAdd)).toEqual({ org: orgId, user: userId, role: 'owner' });
    });
  });

  describe.concurrent('commands (independent runs)', { timeout: CONCURRENT_TIMEOUT_MS }, () => {
    it('user create without --name prints a new {"id"}', async () => {
      const id = expectId(succeeded(await cli('user', 'create', '--email', email())));
      expect(id).not.toBe(userId);
    });

    it('session create prints {"token","expiresAt"} expiring in 7 days by default', async () => {
      const before = Date.now();
      const printed = succeeded(await cli('session', 'create', '--user', String(userId)));
      const after = Date.now();
      expect(printed).toEqual({ token: expect.stringMatching(TOKEN), expiresAt: expect.stringMatching(ISO_8601) });
      const expiresAt = Date.parse(printed.expiresAt as string);
      expect(expiresAt).toBeGreaterThanOrEqual(before + SEVEN_DAYS_MS - MINUTE_MS);
      expect(expiresAt).toBeLessThanOrEqual(after + SEVEN_DAYS_MS + MINUTE_MS);
    });

    it('session create --ttl 60 expires 60 seconds after creation', async () => {
      const before = Date.now();
      const printed = succeeded(await cli('session', 'create', '--user', String(userId), '--ttl', '60'));
      const after = Date.now();
      expect(printed).toEqual({ token: expect.stringMatching(TOKEN), expiresAt: expect.stringMatching(ISO_8601) });
      const expiresAt = Date.parse(printed.expiresAt as string);
      // to the second: the CLI may drop milliseconds
      expect(expiresAt).toBeGreaterThanOrEqual(before + 60_000 - 1000);
      expect(expiresAt).toBeLessThanOrEqual(after + 60_000 + 1000);
    });

    it('session create --org for an organization the user belongs to prints a token', async () => {
      const printed = succeeded(await cli('session', 'create', '--user', String(userId), '--org', String(orgId)));
      expect(printed).toEqual({ token: expect.stringMatching(TOKEN), expiresAt: expect.stringMatching(ISO_8601) });
    });

    it('session revoke --token - reads the token from standard input', async () => {
      const { token } = succeeded(await cli('session', 'create', '--user', String(userId)));
      expect(succeeded(await runCli(['session', 'revoke', '--token', '-'], env, undefined, `${token as string}\n`))).toEqual({
        revoked: true,
      });
      failed(await runCli(['session', 'revoke', '--token', '-'], env, undefined, `${unknownToken()}\n`));
    });

    it('session revoke --token - with nothing on standard input fails as a usage error', async () => {
      expect(failed(await runCli(['session', 'revoke', '--token', '-'], env, undefined, '')).code).toBe('usage');
    });

    it('session revoke prints {"revoked":true}, and again for an already revoked token', async () => {
      expect(succeeded(await cli('session', 'revoke', '--token', sessionToken))).toEqual({ revoked: true });
      expect(succeeded(await cli('session', 'revoke', '--token', sessionToken))).toEqual({ revoked: true });
    });
  });

  describe.concurrent(
    'failures that depend on stored data: {code,message} on stderr, nothing on stdout, exit ≠ 0',
    { timeout: CONCURRENT_TIMEOUT_MS },
    () => {
      it('member add with an unknown organization fails', async () => {
        failed(await cli('member', 'add', '--org', '999999', '--user', String(userId), '--role', 'admin'));
      });

      it('member add with an unknown user fails', async () => {
        failed(await cli('member', 'add', '--org', String(orgId), '--user', '999999', '--role', 'admin'));
      });

      it('session create for an unknown user fails', async () => {
        failed(await cli('session', 'create', '--user', '999999'));
      });

      it('session create --org for an organization the user is not a member of fails', async () => {
        failed(await cli('session', 'create', '--user', String(userId), '--org', String(otherOrgId)));
      });

      it('session create --org for an unknown organization fails', async () => {
        failed(await cli('session', 'create', '--user', String(userId), '--org', '999999'));
      });

      it('user create with an email that exists fails', async () => {
        failed(await cli('user', 'create', '--email', userEmail));
      });

      it('session revoke of a well-formed but unknown token fails', async () => {
        failed(await cli('session', 'revoke', '--token', unknownToken()));
      });
    },
  );

  describe('a CLI session against the HTTP API', () => {
    let server: ReturnType<typeof startServer> | undefined;
    let base: string;

    beforeAll(async () => {
      const port = await freePort();
      server = startServer({ ...env, PORT: String(port), HOST: '127.0.0.1' });
      base = `http://127.0.0.1:${port}`;
      await waitForHealthy(`${base}/health`, 30_000);
    }, CONCURRENT_TIMEOUT_MS);
    afterAll(async () => {
      await stop(server?.child);
    });

    it('authenticates webhook requests until session revoke, then answers 401', async () => {
      const { token } = succeeded(await cli('session', 'create', '--user', String(userId), '--org', String(orgId)));
      const list = () => fetch(`${base}/api/webhook`, { headers: { cookie: `${SESSION_COOKIE}=${token as string}` } });

      const live = await list();
      expect(live.status).toBe(200);
      expect(await live.json()).toEqual({});

      succeeded(await cli('session', 'revoke', '--token', token as string));
      const revoked = await list();
      expect(revoked.status).toBe(401);
      expect(await revoked.json()).toEqual({ code: 'unauthorized' });
    });

    it('a key created with --org sends events for its organization only, and platform-key list shows its last use', async () => {
      const key = succeeded(await cli('platform-key', 'create', '--name', 'scoped', '--org', String(orgId)));
      const send = (organization: number) =>
        fetch(`${base}/api/events`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.token as string}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'user.updated', organization, data: {} }),
        });
      const before = Date.now();
      const refused = await send(otherOrgId);
      expect({ status: refused.status, body: await refused.json() }).toEqual({ status: 403, body: { code: 'forbidden' } });
      expect((await send(orgId)).status).toBe(202);

      const { keys } = succeeded(await cli('platform-key', 'list')) as { keys: { id: number; lastUsedAt: string | null }[] };
      const lastUsedAt = keys.find((listed) => listed.id === key.id)?.lastUsedAt;
      expect(lastUsedAt).toEqual(expect.stringMatching(ISO_8601));
      expect(Date.parse(lastUsedAt!)).toBeGreaterThanOrEqual(before - 1000);
    });
  });
});

// Command-line errors are commander's and the CLI's own, whatever the database: one run on
// SQLite keeps the suite fast (every CLI run costs a second or two of CPU).
describe('operator CLI: command-line errors', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let orgId: number;
  let userId: number;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
    env = { DATABASE_URL: db.url, SECRET_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent' };
    succeeded(await runCli(['migrate'], env));
    const [org, user] = await Promise.all([
      runCli(['org', 'create', '--name', 'Acme'], env),
      runCli(['user', 'create', '--email', email()], env),
    ]);
    orgId = expectId(succeeded(org));
    userId = expectId(succeeded(user));
  }, CONCURRENT_TIMEOUT_MS);
  afterAll(async () => {
    await db?.drop();
  });

  // Arguments are built when the test runs (the ids exist only after beforeAll), and every
  // value but the broken one is valid.
  describe.concurrent('print {code,message} on stderr, nothing on stdout, and exit ≠ 0', { timeout: CONCURRENT_TIMEOUT_MS }, () => {
    it.each<{ title: string; args: () => string[] }>([
      { title: 'no command', args: () => [] },
      { title: 'an unknown command', args: () => ['frobnicate'] },
      { title: 'an unknown option', args: () => ['org', 'create', '--name', 'X', '--colour', 'red'] },
      { title: 'a missing required option', args: () => ['member', 'add', '--org', String(orgId), '--user', String(userId)] },
      { title: 'a group without subcommand (org)', args: () => ['org'] },
      { title: '--role bogus', args: () => ['member', 'add', '--org', String(orgId), '--user', String(userId), '--role', 'bogus'] },
      { title: '--user abc', args: () => ['session', 'create', '--user', 'abc'] },
      { title: '--ttl -5', args: () => ['session', 'create', '--user', String(userId), '--ttl', '-5'] },
      { title: '--ttl 0', args: () => ['session', 'create', '--user', String(userId), '--ttl', '0'] },
      { title: '--email nope', args: () => ['user', 'create', '--email', 'nope'] },
      {
        title: 'platform-key revoke with both --id and --token',
        args: () => ['platform-key', 'revoke', '--id', '1', '--token', unknownToken()],
      },
      { title: 'platform-key revoke with neither --id nor --token', args: () => ['platform-key', 'revoke'] },
      { title: 'event send without --org', args: () => ['event', 'send', '--type', 'user.updated'] },
      { title: 'platform-key create --expires-in 0', args: () => ['platform-key', 'create', '--name', 'k', '--expires-in', '0'] },
      { title: 'webhook without subcommand', args: () => ['webhook'] },
      { title: 'webhook recover without --since', args: () => ['webhook', 'recover', '--org', String(orgId), '--name', 'lost'] },
      {
        title: 'webhook recover --since that is not a moment',
        args: () => ['webhook', 'recover', '--org', String(orgId), '--name', 'lost', '--since', 'yesterday'],
      },
      {
        title: 'webhook recover --name that is not a name',
        args: () => ['webhook', 'recover', '--org', String(orgId), '--name', 'Lost!', '--since', '2026-01-01T00:00:00Z'],
      },
    ])('$title', async ({ args }) => {
      failed(await runCli(args(), env));
    });
  });
});

describe('operator CLI: database unreachable', () => {
  it('prints {code,message} on stderr, nothing on stdout, and exits ≠ 0', async () => {
    // a port nothing listens on: the connection is refused at once
    const url = `mysql://root@127.0.0.1:${await freePort()}/platform_api`;
    failed(
      await runCli(['org', 'create', '--name', 'Acme'], {
        DATABASE_URL: url,
        SECRET_KEY: randomBytes(32).toString('base64'),
        LOG_LEVEL: 'silent',
      }),
    );
  });
});
