import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hashToken } from '../../src/crypto/opaque-token';
import { createTestDatabase, describeEachDatabase, TestDatabase } from '../support/databases';
import { runCli, startServer, waitForHealthy } from '../support/processes';
import { freePort } from '../support/ports';

/*
 * docs/api.md 8: the operator commands of cards and wallet tokens, run as the built CLI against a
 * throwaway database, and (docs/api.md 6) what they store as the server then serves it.
 */

// Every command is a process that boots Nest: slow on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 300_000 });

type Row = Record<string, unknown>;

/** Reads the throwaway database directly (the CLI prints ids, not rows). */
async function query(db: TestDatabase, sql: string, params: (string | number)[] = []): Promise<Row[]> {
  if (db.kind === 'sqlite') {
    const connection = new SqliteDatabase(db.url.slice('sqlite:'.length), { readonly: true });
    try {
      return connection.prepare(sql).all(...params) as Row[];
    } finally {
      connection.close();
    }
  }
  const connection = await mysql.createConnection({ uri: db.url });
  try {
    return (await connection.query(sql, params))[0] as Row[];
  } finally {
    await connection.end();
  }
}

const unique = () => randomBytes(6).toString('hex');
const HOUR_MS = 3600 * 1000;
const MINUTE_MS = 60 * 1000;

describeEachDatabase('operator CLI: issuers, cards and wallet tokens', (kind) => {
  let db: TestDatabase;
  let env: Record<string, string>;
  /** An organization, a member of it, a user outside it and an issuer, made through the CLI. */
  let org: number;
  let member: number;
  let outsider: number;
  let issuer: number;

  /** Runs a command that must succeed: exit 0, nothing on stderr, one JSON object on stdout. */
  async function succeeds(args: string[]): Promise<Row> {
    const result = await runCli(args, env);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]) as Row;
  }

  /** Runs a command that must fail: non-zero exit, nothing on stdout, one `{code, message}` on stderr. */
  async function fails(args: string[]): Promise<Row> {
    const result = await runCli(args, env);
    expect(result.code).not.toBe(0);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const failure = JSON.parse(lines[0]) as Row;
    expect(Object.keys(failure).sort()).toEqual(['code', 'message']);
    expect([typeof failure.code, typeof failure.message]).toEqual(['string', 'string']);
    return failure;
  }

  const idOf = async (args: string[]): Promise<number> => (await succeeds(args)).id as number;

  const newUser = () => idOf(['user', 'create', '--email', `${unique()}@example.test`]);

  async function newMember(): Promise<number> {
    const user = await newUser();
    await succeeds(['member', 'add', '--org', String(org), '--user', String(user), '--role', 'member']);
    return user;
  }

  const cardCount = async (): Promise<number> => Number((await query(db, 'SELECT COUNT(*) AS n FROM cards'))[0].n);

  async function cardRow(id: number): Promise<Row> {
    const [row] = await query(db, 'SELECT * FROM cards WHERE id = ?', [id]);
    expect(row).toBeDefined();
    return row;
  }

  /** `card create` for the shared member with these extra options. */
  const cardCreate = (...options: string[]) => ['card', 'create', '--user', String(member), '--org', String(org), ...options];

  /** Asserts that `args` (a card create) fails and stores no card. */
  async function refusesCard(args: string[]): Promise<void> {
    const before = await cardCount();
    await fails(args);
    expect(await cardCount()).toBe(before);
  }

  beforeAll(async () => {
    db = await createTestDatabase(kind);
    env = { DATABASE_URL: db.url, SECRET_KEY: randomBytes(32).toString('base64'), LOG_LEVEL: 'silent' };
    await succeeds(['migrate']);
    org = await idOf(['org', 'create', '--name', 'Card Org']);
    member = await newMember();
    outsider = await newUser();
    issuer = await idOf(['issuer', 'create', '--name', 'Test Issuer']);
  });
  afterAll(() => db?.drop());

  describe('issuer create', () => {
    it('prints {"id","kind"} of a new issuer, stored by default, and exits 0', async () => {
      const printed = await succeeds(['issuer', 'create', '--name', 'Another Issuer']);
      expect(Object.keys(printed)).toEqual(['id', 'kind']);
      expect(printed.id).toBeGreaterThan(issuer);
      expect(printed.kind).toBe('stored');
      expect(await query(db, 'SELECT name, kind, base_url FROM issuers WHERE id = ?', [printed.id as number])).toEqual([
        { name: 'Another Issuer', kind: 'stored', base_url: null },
      ]);
    });
  });

  describe('card create', () => {
    it('prints {"id"} of a new active card when no status is given', async () => {
      const printed = await succeeds(cardCreate());
      expect(Object.keys(printed)).toEqual(['id']);
      const row = await cardRow(printed.id as number);
      expect([row.user_id, row.organization_id, row.status, row.issuer_id]).toEqual([member, org, 'active', null]);
    });

    it('stores the status given with --status', async () => {
      const id = await idOf(cardCreate('--status', 'frozen'));
      expect((await cardRow(id)).status).toBe('frozen');
    });

    it('stores the issuer and provisioning id, and the provisioning secret only encrypted', async () => {
      const secret = `pss-${unique()}`;
      const id = await idOf(cardCreate('--issuer', String(issuer), '--provisioning-id', 'prov-stored', '--provisioning-secret', secret));
      const row = await cardRow(id);
      expect([row.issuer_id, row.provisioning_id]).toEqual([issuer, 'prov-stored']);
      expect(typeof row.provisioning_secret).toBe('string');
      expect(JSON.stringify(row)).not.toContain(secret);
    });

    it('refuses a user who is not a member of the organization', async () => {
      await refusesCard(['card', 'create', '--user', String(outsider), '--org', String(org)]);
    });

    it('refuses an unknown user', async () => {
      await refusesCard(['card', 'create', '--user', '999999', '--org', String(org)]);
    });

    it('refuses an unknown organization', async () => {
      await refusesCard(['card', 'create', '--user', String(member), '--org', '999999']);
    });

    it('refuses an unknown issuer', async () => {
      await refusesCard(cardCreate('--issuer', '999999', '--provisioning-id', 'prov-x', '--provisioning-secret', 'secret-x'));
    });

    it('refuses --issuer without the provisioning credentials', async () => {
      await refusesCard(cardCreate('--issuer', String(issuer)));
    });

    it('refuses --issuer with a provisioning id but no provisioning secret', async () => {
      await refusesCard(cardCreate('--issuer', String(issuer), '--provisioning-id', 'prov-x'));
    });

    it('refuses --issuer with a provisioning secret but no provisioning id', async () => {
      await refusesCard(cardCreate('--issuer', String(issuer), '--provisioning-secret', 'secret-x'));
    });

    it('refuses a provisioning id without an issuer', async () => {
      await refusesCard(cardCreate('--provisioning-id', 'prov-x'));
    });

    it('refuses a provisioning secret without an issuer', async () => {
      await refusesCard(cardCreate('--provisioning-secret', 'secret-x'));
    });

    it('refuses both provisioning credentials without an issuer', async () => {
      await refusesCard(cardCreate('--provisioning-id', 'prov-x', '--provisioning-secret', 'secret-x'));
    });

    it('refuses a status that is not active, frozen or closed', async () => {
      await refusesCard(cardCreate('--status', 'lost'));
    });
  });

  describe('a processor issuer and its cards (docs/api.md 6.1)', () => {
    /** A file of `content` in a directory of its own. */
    const fileOf = (content: string): string => {
      const path = join(mkdtempSync(join(tmpdir(), 'credentials-')), 'credentials.json');
      writeFileSync(path, content, { mode: 0o600 });
      return path;
    };
    const issuerCount = async (): Promise<number> => Number((await query(db, 'SELECT COUNT(*) AS n FROM issuers'))[0].n);

    it('prints {"id","kind"} of a Lithic issuer, stores its base URL and its API key only encrypted, and takes its cards', async () => {
      const apiKey = `sk-${unique()}`;
      const args = ['issuer', 'create', '--name', 'Lithic', '--kind', 'lithic', '--base-url', 'http://127.0.0.1:4010/'];
      const result = await runCli([...args, '--credentials-file', fileOf(JSON.stringify({ apiKey }))], env);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      const printed = JSON.parse(result.stdout) as Row;
      expect(Object.keys(printed)).toEqual(['id', 'kind']);
      expect(printed.kind).toBe('lithic');
      const [row] = await query(db, 'SELECT * FROM issuers WHERE id = ?', [printed.id as number]);
      expect([row.kind, row.base_url, typeof row.credentials]).toEqual(['lithic', 'http://127.0.0.1:4010', 'string']);
      expect(JSON.stringify(row) + result.stdout).not.toContain(apiKey);

      const card = await idOf(
        cardCreate(
          '--issuer',
          String(printed.id),
          '--processor-token',
          'tok-1',
          '--title',
          'Everyday',
          '--holder',
          'Ann Lee',
          '--suffix',
          '4242',
          '--network',
          'visa',
        ),
      );
      const stored = await cardRow(card);
      expect([
        stored.issuer_id,
        stored.processor_token,
        stored.title,
        stored.cardholder_name,
        stored.primary_account_suffix,
        stored.network,
      ]).toEqual([printed.id, 'tok-1', 'Everyday', 'Ann Lee', '4242', 'visa']);
    });

    // Refused before anything is written, whatever the database: run once.
    it.runIf(kind === 'sqlite')('refuses a base URL of http to a host that is not a loopback address, storing nothing', async () => {
      const before = await issuerCount();
      const failure = await fails([
        ...['issuer', 'create', '--name', 'Plain', '--kind', 'marqeta', '--base-url', 'http://sandbox-api.marqeta.com/v3'],
        ...['--credentials-file', fileOf('{"username":"u","password":"p"}')],
      ]);
      expect(failure).toEqual({
        code: 'invalid',
        message: '--base-url: must use https (http only to a loopback address, 127.0.0.0/8 or [::1])',
      });
      expect(await issuerCount()).toBe(before);
    });

    it.runIf(kind === 'sqlite')('refuses a credentials file that is not JSON without printing any of it', async () => {
      const path = fileOf('{"apiKey": sk-live-secret-value');
      const failure = await fails([
        'issuer',
        'create',
        '--name',
        'Broken',
        '--kind',
        'lithic',
        '--base-url',
        'https://api.lithic.com',
        '--credentials-file',
        path,
      ]);
      expect(failure).toEqual({ code: 'invalid', message: `--credentials-file: ${path} is not JSON` });
    });
  });

  describe('card set-status', () => {
    it('prints {"id","status"} and stores the new status', async () => {
      const id = await idOf(cardCreate());
      expect(await succeeds(['card', 'set-status', '--card', String(id), '--status', 'closed'])).toEqual({ id, status: 'closed' });
      expect((await cardRow(id)).status).toBe('closed');
    });

    it('refuses an unknown card', async () => {
      await fails(['card', 'set-status', '--card', '999999', '--status', 'frozen']);
    });

    it('refuses a status that is not active, frozen or closed, leaving the card as it was', async () => {
      const id = await idOf(cardCreate('--status', 'frozen'));
      await fails(['card', 'set-status', '--card', String(id), '--status', 'ACTIVE']);
      expect((await cardRow(id)).status).toBe('frozen');
    });
  });

  describe('wallet-token create', () => {
    /** Creates a token and checks `{"token","expiresAt"}`, with the expiry `ttlMs` from now within a minute. */
    async function expectTokenLasting(args: string[], ttlMs: number): Promise<void> {
      const printed = await succeeds(args);
      expect(Object.keys(printed).sort()).toEqual(['expiresAt', 'token']);
      expect(printed.token).toMatch(/^[A-Za-z0-9_-]{43,}$/);
      expect(printed.expiresAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
      expect(Math.abs(Date.parse(printed.expiresAt as string) - (Date.now() + ttlMs))).toBeLessThan(MINUTE_MS);
    }

    it('prints {"token","expiresAt"} expiring in one hour by default', async () => {
      await expectTokenLasting(['wallet-token', 'create', '--user', String(await newUser())], HOUR_MS);
    });

    it('prints an expiry --ttl seconds ahead', async () => {
      await expectTokenLasting(['wallet-token', 'create', '--user', String(await newUser()), '--ttl', '600'], 600 * 1000);
    });

    it('stores the token only as its hash', async () => {
      const { token } = await succeeds(['wallet-token', 'create', '--user', String(await newUser())]);
      const rows = await query(db, 'SELECT * FROM access_tokens');
      expect(rows.filter((row) => row.token_hash === hashToken(token as string))).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(token as string);
    });

    it('refuses an unknown user', async () => {
      await fails(['wallet-token', 'create', '--user', '999999']);
    });

    it('refuses a --ttl that is not a positive number of seconds', async () => {
      await fails(['wallet-token', 'create', '--user', String(await newUser()), '--ttl', '0']);
    });
  });

  describe('wallet-token revoke', () => {
    it('--token - reads the token from standard input', async () => {
      const { token } = await succeeds(['wallet-token', 'create', '--user', String(await newUser())]);
      const result = await runCli(['wallet-token', 'revoke', '--token', '-'], env, undefined, `${token as string}\n`);
      expect({ code: result.code, stdout: result.stdout.trim() }).toEqual({ code: 0, stdout: '{"revoked":true}' });
      const [row] = await query(db, 'SELECT revoked_at FROM access_tokens WHERE token_hash = ?', [hashToken(token as string)]);
      expect(row.revoked_at).not.toBeNull();
    });

    it('prints {"revoked":true} and marks the token revoked', async () => {
      const { token } = await succeeds(['wallet-token', 'create', '--user', String(await newUser())]);
      expect(await succeeds(['wallet-token', 'revoke', '--token', token as string])).toEqual({ revoked: true });
      const [row] = await query(db, 'SELECT revoked_at FROM access_tokens WHERE token_hash = ?', [hashToken(token as string)]);
      expect(row.revoked_at).not.toBeNull();
    });

    it('refuses an unknown token', async () => {
      await fails(['wallet-token', 'revoke', '--token', randomBytes(32).toString('base64url')]);
    });

    it('refuses a session token and leaves the session live', async () => {
      const user = await newMember();
      const { token } = await succeeds(['session', 'create', '--user', String(user), '--org', String(org)]);
      await fails(['wallet-token', 'revoke', '--token', token as string]);
      const [row] = await query(db, 'SELECT revoked_at FROM sessions WHERE token_hash = ?', [hashToken(token as string)]);
      expect(row).toEqual({ revoked_at: null });
    });
  });

  describe('served by the API', () => {
    let server: ReturnType<typeof startServer>;
    let base: string;

    beforeAll(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      server = startServer({ ...env, HOST: '127.0.0.1', PORT: String(port) });
      await waitForHealthy(`${base}/health`, 120_000);
    });
    afterAll(async () => {
      if (server.child.exitCode === null) server.child.kill('SIGTERM');
      await server.exited;
    });

    const provisioning = (token: string) => fetch(`${base}/api/card/provisioning`, { headers: { Authorization: `Bearer ${token}` } });

    it('card create --provisioning-secret - reads the secret from standard input; the card provisions exactly it', async () => {
      const user = await newMember();
      const secret = `pss-${randomBytes(24).toString('base64url')}`;
      const args = [
        'card',
        'create',
        '--user',
        String(user),
        '--org',
        String(org),
        '--issuer',
        String(issuer),
        '--provisioning-id',
        'prov-stdin',
        '--provisioning-secret',
        '-',
      ];
      const result = await runCli(args, env, undefined, `${secret}\n`);
      expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.stringify(await cardRow((JSON.parse(result.stdout) as Row).id as number))).not.toContain(secret);
      const { token } = await succeeds(['wallet-token', 'create', '--user', String(user)]);
      expect(await (await provisioning(token as string)).json()).toEqual({ id: 'prov-stdin', secret });
    });

    /** A fresh member with a card created through the CLI with credentials, and a wallet token. */
    async function cardHolder(): Promise<{ card: number; token: string; provisioningId: string; secret: string }> {
      const user = await newMember();
      const provisioningId = `prov-${unique()}`;
      const secret = `pss-${randomBytes(24).toString('base64url')}`;
      const card = await idOf([
        'card',
        'create',
        '--user',
        String(user),
        '--org',
        String(org),
        '--issuer',
        String(issuer),
        '--provisioning-id',
        provisioningId,
        '--provisioning-secret',
        secret,
      ]);
      const { token } = await succeeds(['wallet-token', 'create', '--user', String(user)]);
      return { card, token: token as string, provisioningId, secret };
    }

    it('serves the provisioning id and secret given to card create', async () => {
      const { token, provisioningId, secret } = await cardHolder();
      const res = await provisioning(token);
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { id: provisioningId, secret } });
    });

    it('refuses a wallet token revoked through the CLI', async () => {
      const { token } = await cardHolder();
      await succeeds(['wallet-token', 'revoke', '--token', token]);
      const res = await provisioning(token);
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 401, body: { code: 'unauthorized' } });
    });

    it('stops serving a card closed through the CLI', async () => {
      const { card, token } = await cardHolder();
      await succeeds(['card', 'set-status', '--card', String(card), '--status', 'closed']);
      const res = await provisioning(token);
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 404, body: { code: 'no card' } });
    });
  });
});
