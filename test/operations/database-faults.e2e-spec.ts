import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { isDeepStrictEqual } from 'node:util';
import mysql from 'mysql2/promise';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, describeOnMariadb, TestDatabase } from '../support/databases';
import { SESSION_COOKIE, TestApp } from '../support/test-app';
import { CutMode, TcpProxy } from '../support/tcp-proxy';

/*
 * Database faults (docs/api.md 7, 9): the service reaches MariaDB only through a TCP proxy of the
 * test's own, which cuts the database off (new connections refused, reset or left silent;
 * open ones dropped) and brings it back while the same process keeps serving. While it is cut
 * every request answers 503 `unavailable` with Retry-After within a bound, /health answers
 * 503; once it is back the process serves again within 5 s; nothing acknowledged is lost, and
 * a write in flight at the cut lands whole or not at all. Rows are checked over a direct
 * connection to MariaDB, not through the service.
 */

const ZONE = { 'hooks.example.com': { A: ['93.184.215.14'] } };
const hook = (path: string): string => `https://hooks.example.com/${path}`;

/** DB_CONNECT_TIMEOUT_MS of the service: a handshake that gets no answer fails after this. */
const CONNECT_TIMEOUT_MS = 1_000;
/** Upper bound on any answer while the database is cut off (busy 2-core VM: generous). */
const CUT_BOUND_MS = 3_000;
const HEALTH_BOUND_MS = 2_500;
const RECOVERY_BOUND_MS = 5_000;
/** The client gives up after this, so a hanging request fails its test, not the suite. */
const CLIENT_TIMEOUT_MS = 8_000;
const POOL_SIZE = 10;
const ENV = {
  DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  DB_POOL_SIZE: String(POOL_SIZE),
  // One session sends a few hundred requests here; the rate limits are not under test.
  RATE_LIMIT_PER_SESSION: '100000',
  RATE_LIMIT_PER_ORGANIZATION: '100000',
};
/** Concurrent requests of the burst: four times the pool, so most of them wait for a connection. */
const BURST = 4 * POOL_SIZE;
const MODES: readonly CutMode[] = ['refuse', 'reset', 'silent'];

interface Answer {
  status: number;
  body: unknown;
  retryAfter: string | null;
  ms: number;
  /** performance.now() when the answer was complete. */
  endedAt: number;
}

interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  cookie?: string;
  bearer?: string;
  body?: unknown;
}

/** The URL columns of a stored webhook (null: not set). */
interface StoredRow {
  url: string;
  transaction_created_url: string | null;
  transaction_updated_url: string | null;
  transaction_completed_url: string | null;
  card_updated_url: string | null;
  user_updated_url: string | null;
}

interface WebhookJson {
  url: string;
  transaction?: { created?: string; updated?: string; completed?: string };
  card?: { updated?: string };
  user?: { updated?: string };
}

/** The row a webhook body stores (a create or legacy body; groups given whole). */
const rowOf = (body: WebhookJson): StoredRow => ({
  url: body.url,
  transaction_created_url: body.transaction?.created ?? null,
  transaction_updated_url: body.transaction?.updated ?? null,
  transaction_completed_url: body.transaction?.completed ?? null,
  card_updated_url: body.card?.updated ?? null,
  user_updated_url: body.user?.updated ?? null,
});

/** A webhook body with a URL in every group, all under `tag`. */
const fullBody = (tag: string): WebhookJson => ({
  url: hook(tag),
  transaction: { created: hook(`${tag}/tc`), updated: hook(`${tag}/tu`), completed: hook(`${tag}/tx`) },
  card: { updated: hook(`${tag}/cu`) },
  user: { updated: hook(`${tag}/uu`) },
});

const UNAVAILABLE = { status: 503, body: { code: 'unavailable' }, retryAfter: '5' };
const shapeOf = ({ status, body, retryAfter }: Answer) => ({ status, body, retryAfter });

describeOnMariadb('database faults (MariaDB behind a proxy the test cuts)', () => {
  let real: TestDatabase;
  let proxy: TcpProxy;
  let t: TestApp;
  let base: string;
  let direct: mysql.Connection;
  let owner: Awaited<ReturnType<TestApp['member']>>;
  let walletToken: string;
  /** Every webhook acknowledged (201) before any cut, with the body that created it. */
  const acknowledged = new Map<string, WebhookJson>();
  /** The longest answer seen while the database was cut off, per cut mode. */
  const longest = new Map<CutMode, { ms: number; what: string }>();
  const inFlight: string[] = [];

  beforeAll(async () => {
    real = await createTestDatabase('mariadb');
    const realUrl = new URL(real.url);
    proxy = await TcpProxy.start({ host: realUrl.hostname, port: Number(realUrl.port || 3306) });
    const viaProxy = new URL(real.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const database: TestDatabase = { kind: 'mariadb', url: viaProxy.toString(), drop: () => real.drop() };
    t = await TestApp.start('mariadb', { database, zone: ZONE, env: ENV });
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    direct = await mysql.createConnection({ uri: real.url });

    owner = await t.member('owner');
    const { token } = await t.identity.createWalletToken(owner.userId, 3600);
    walletToken = token;
    for (const name of ['alpha', 'beta', 'gamma']) {
      const body = name === 'alpha' ? fullBody(name) : { url: hook(name), card: { updated: hook(`${name}/cu`) } };
      const created = await call({ method: 'POST', path: `/api/webhook/${name}`, cookie: owner.cookie, body });
      expect(created.status).toBe(201);
      acknowledged.set(name, body);
    }
  });

  afterEach(async () => {
    proxy.disarm();
    proxy.latencyMs = 0;
    await proxy.restore();
  });

  afterAll(async () => {
    const figures = [...longest].map(([mode, { ms, what }]) => `${mode}: ${ms} ms (${what})`).join('; ');
    process.stdout.write(`\n[database-faults] longest answer while the database was cut off: ${figures || 'none measured'}\n`);
    if (inFlight.length > 0) process.stdout.write(`[database-faults] writes in flight at a cut:\n  ${inFlight.join('\n  ')}\n`);
    process.stdout.write(
      `[database-faults] errors the service logged (message: error code × count): ${JSON.stringify(loggedErrors(t?.logs ?? []))}\n`,
    );
    await direct?.end();
    await t?.close();
    await proxy?.close();
    await real?.drop();
  });

  /** One request over real HTTP, timed; a request that hangs past CLIENT_TIMEOUT_MS throws. */
  async function call({ method, path, cookie, bearer, body }: Call): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (cookie !== undefined) headers.cookie = cookie;
    if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const started = performance.now();
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
    } catch (error) {
      const ms = Math.round(performance.now() - started);
      throw new Error(`${method} ${path} got no answer after ${ms} ms (${(error as Error).name})`, { cause: error });
    }
    const text = await response.text();
    const endedAt = performance.now();
    const ms = Math.round(endedAt - started);
    return {
      endedAt,
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      retryAfter: response.headers.get('retry-after'),
      ms,
    };
  }

  /** `call` while the database is cut off: its time counts towards the figure reported. */
  async function callWhileCut(mode: CutMode, what: string, request: Call): Promise<Answer> {
    const answer = await call(request);
    if (answer.ms > (longest.get(mode)?.ms ?? -1)) longest.set(mode, { ms: answer.ms, what });
    return answer;
  }

  /** The stored webhooks of an organization, by name, and whether it has a source row. */
  async function stateOf(organizationId: number): Promise<{ webhooks: Record<string, StoredRow>; sourceRows: number }> {
    const [rows] = await direct.query<mysql.RowDataPacket[]>(
      `SELECT w.name, w.url, w.transaction_created_url, w.transaction_updated_url, w.transaction_completed_url,
              w.card_updated_url, w.user_updated_url
         FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ?`,
      [organizationId],
    );
    const [[{ n }]] = await direct.query<mysql.RowDataPacket[]>('SELECT COUNT(*) AS n FROM webhook_sources WHERE organization_id = ?', [
      organizationId,
    ]);
    const webhooks = Object.fromEntries(rows.map(({ name, ...row }) => [name as string, row as StoredRow]));
    return { webhooks, sourceRows: Number(n) };
  }

  /** docs/api.md 5: a source row iff at least one webhook (and never two). */
  function expectSourceInvariant(state: { webhooks: Record<string, StoredRow>; sourceRows: number }): void {
    expect(state.sourceRows).toBe(Object.keys(state.webhooks).length > 0 ? 1 : 0);
  }

  /** Every kind of request the service serves; all of them read the database first. */
  const requests = (): [string, Call][] => {
    const unknownSession = `${SESSION_COOKIE}=${randomBytes(32).toString('base64url')}`;
    return [
      ['GET list', { method: 'GET', path: '/api/webhook', cookie: owner.cookie }],
      ['GET one', { method: 'GET', path: '/api/webhook/alpha', cookie: owner.cookie }],
      ['POST create', { method: 'POST', path: '/api/webhook/while-cut', cookie: owner.cookie, body: { url: hook('while-cut') } }],
      ['PATCH', { method: 'PATCH', path: '/api/webhook/alpha', cookie: owner.cookie, body: { url: hook('patched-while-cut') } }],
      ['DELETE', { method: 'DELETE', path: '/api/webhook/beta', cookie: owner.cookie }],
      [
        'legacy POST',
        { method: 'POST', path: '/api/webhook', cookie: owner.cookie, body: { name: 'gamma', url: hook('legacy-while-cut') } },
      ],
      ['legacy DELETE', { method: 'DELETE', path: '/api/webhook', cookie: owner.cookie, body: { name: 'gamma' } }],
      ['card provisioning (wallet token)', { method: 'GET', path: '/api/card/provisioning', bearer: walletToken }],
      ['an unknown session (authentication)', { method: 'GET', path: '/api/webhook', cookie: unknownSession }],
    ];
  };

  describe.each(MODES)('while the database is cut off (%s)', (mode) => {
    // (The suite's afterEach brings the database back after each test.)
    beforeEach(async () => {
      // Warm the pool first, so that the cut also drops open connections.
      expect((await call({ method: 'GET', path: '/api/webhook', cookie: owner.cookie })).status).toBe(200);
      await proxy.cut(mode);
    });

    it('answers every kind of request 503 unavailable with Retry-After, each within the bound', async () => {
      for (const [what, request] of requests()) {
        const answer = await callWhileCut(mode, what, request);
        expect({ what, ...shapeOf(answer) }).toEqual({ what, ...UNAVAILABLE });
        expect(answer.ms, what).toBeLessThan(CUT_BOUND_MS);
      }
    });

    it(`answers a burst of ${BURST} concurrent requests (more than the pool holds) 503 unavailable, none slower than the bound`, async () => {
      const kinds = requests();
      const burst = Array.from({ length: BURST }, (_, i) => kinds[i % kinds.length]);
      const answers = await Promise.all(burst.map(([what, request]) => callWhileCut(mode, `burst: ${what}`, request)));
      expect(answers.map(shapeOf)).toEqual(burst.map(() => UNAVAILABLE));
      expect(Math.max(...answers.map((a) => a.ms)), 'slowest answer of the burst, ms').toBeLessThan(CUT_BOUND_MS);
    });

    it('answers /health 503 unavailable within the health bound', async () => {
      const answer = await callWhileCut(mode, 'GET /health', { method: 'GET', path: '/health' });
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 503, body: { code: 'unavailable' } });
      expect(answer.ms).toBeLessThan(HEALTH_BOUND_MS);
    });
  });

  describe.each(MODES)('after the database comes back from a %s cut', (mode) => {
    it('serves 200 again within 5 s, in the same process, with no restart', async () => {
      const dataSource = t.dataSource;
      await proxy.cut(mode);
      // The database comes back in the middle of a burst of reads (connects failing or
      // pending, waiters queued); none of them may hang or fail with anything but 503.
      const reads = requests().filter(([, request]) => request.method === 'GET');
      const burst = Promise.all(Array.from({ length: BURST }, (_, i) => call(reads[i % reads.length][1])));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await proxy.restore();
      const restored = performance.now();
      await expect
        .poll(async () => (await call({ method: 'GET', path: '/api/webhook', cookie: owner.cookie })).status, {
          timeout: RECOVERY_BOUND_MS,
          interval: 100,
        })
        .toBe(200);
      const recoveredMs = Math.round(performance.now() - restored);
      process.stdout.write(`[database-faults] ${mode}: first 200 ${recoveredMs} ms after the database came back\n`);
      expect(recoveredMs).toBeLessThan(RECOVERY_BOUND_MS);
      expect((await call({ method: 'GET', path: '/health' })).status).toBe(200);
      expect(t.dataSource).toBe(dataSource);
      expect(dataSource.isInitialized).toBe(true);
      const statuses = new Set((await burst).map((a) => (a.status === 503 ? 'unavailable' : a.status < 500 ? 'served' : a.status)));
      expect([...statuses].filter((s) => s !== 'unavailable' && s !== 'served')).toEqual([]);
    });
  });

  it('still has every webhook acknowledged before the cuts, with all its URLs', async () => {
    const listed = await call({ method: 'GET', path: '/api/webhook', cookie: owner.cookie });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual(Object.fromEntries(acknowledged));
    const state = await stateOf(owner.organizationId);
    expect(state.webhooks).toEqual(Object.fromEntries([...acknowledged].map(([name, body]) => [name, rowOf(body)])));
    expectSourceInvariant(state);
  });

  it('takes writes again once the database is back', async () => {
    await proxy.cut('refuse');
    expect((await call({ method: 'POST', path: '/api/webhook/after', cookie: owner.cookie, body: { url: hook('x') } })).status).toBe(503);
    await proxy.restore();
    const m = await t.member('owner');
    const body = fullBody('after');
    const created = await call({ method: 'POST', path: '/api/webhook/after', cookie: m.cookie, body });
    expect(created.status).toBe(201);
    const patched = await call({ method: 'PATCH', path: '/api/webhook/after', cookie: m.cookie, body: { card: null } });
    expect(patched.status).toBe(200);
    const deleted = await call({ method: 'DELETE', path: '/api/webhook/after', cookie: m.cookie });
    expect(deleted.status).toBe(200);
    const state = await stateOf(m.organizationId);
    expect(state).toEqual({ webhooks: {}, sourceRows: 0 });
  });

  describe('a write in flight at the cut', () => {
    /** The COM_QUERY packet of `COMMIT` (command byte 0x03 before it). */
    const COMMIT_STATEMENT = /[^\w ]COMMIT$/;

    /**
     * Statements are prepared once per connection, and only then does their text cross the
     * wire: drop every connection, and wait until a read works again on new ones.
     */
    async function freshConnections(cookie: string): Promise<void> {
      await proxy.cut('reset');
      await proxy.restore();
      await expect
        .poll(async () => (await call({ method: 'GET', path: '/api/webhook', cookie })).status, {
          timeout: 5000,
          interval: 100,
          message: 'the service comes back after the connections were dropped',
        })
        .toBe(200);
    }

    /** Runs `write` with the proxy armed to cut at `pattern`; returns the answer, the database back. */
    async function cutDuring(what: string, pattern: RegExp, forwardFirst: boolean, write: Call): Promise<Answer> {
      await freshConnections(write.cookie!);
      const cut = proxy.cutWhenClientSends(pattern, { forwardFirst });
      const answer = await callWhileCut('refuse', what, write);
      const never = new Promise<'never'>((resolve) => setTimeout(() => resolve('never'), 2_000));
      expect(await Promise.race([cut.then(() => 'cut'), never]), `the proxy saw ${pattern} and cut`).toBe('cut');
      await proxy.restore();
      inFlight.push(`${what}: ${answer.status} ${JSON.stringify(answer.body)} in ${answer.ms} ms`);
      return answer;
    }

    it('a create cut before its INSERT reaches the database leaves no webhook and no source row, and answers 503', async () => {
      const m = await t.member('owner');
      const answer = await cutDuring('create, cut before INSERT', /INSERT INTO webhooks/, false, {
        method: 'POST',
        path: '/api/webhook/torn',
        cookie: m.cookie,
        body: fullBody('torn'),
      });
      expect(shapeOf(answer)).toEqual(UNAVAILABLE);
      expect(await stateOf(m.organizationId)).toEqual({ webhooks: {}, sourceRows: 0 });
    });

    it('a create cut right after its COMMIT was sent lands whole or not at all, and is present if acknowledged', async () => {
      const m = await t.member('owner');
      const body = fullBody('committed');
      const answer = await cutDuring('create, cut after COMMIT sent', COMMIT_STATEMENT, true, {
        method: 'POST',
        path: '/api/webhook/committed',
        cookie: m.cookie,
        body,
      });
      expect([201, 503]).toContain(answer.status);
      const state = await stateOf(m.organizationId);
      inFlight.push(`create, cut after COMMIT sent: ${'committed' in state.webhooks ? 'landed (whole)' : 'did not land'}`);
      if (answer.status === 201) expect(state.webhooks).toEqual({ committed: rowOf(body) });
      else expect([{}, { committed: rowOf(body) }]).toContainEqual(state.webhooks);
      expectSourceInvariant(state);
    });

    it('a delete of the last webhook cut before its source row is removed leaves both, and answers 503', async () => {
      const m = await t.member('owner');
      const body = fullBody('last');
      expect((await call({ method: 'POST', path: '/api/webhook/last', cookie: m.cookie, body })).status).toBe(201);
      const answer = await cutDuring('delete last, cut before DELETE FROM webhook_sources', /DELETE FROM webhook_sources/, false, {
        method: 'DELETE',
        path: '/api/webhook/last',
        cookie: m.cookie,
      });
      expect(shapeOf(answer)).toEqual(UNAVAILABLE);
      expect(await stateOf(m.organizationId)).toEqual({ webhooks: { last: rowOf(body) }, sourceRows: 1 });
    });

    it('a PATCH cut before its UPDATE reaches the database leaves the webhook unchanged, and answers 503', async () => {
      const m = await t.member('owner');
      const body = fullBody('patch-me');
      expect((await call({ method: 'POST', path: '/api/webhook/patch-me', cookie: m.cookie, body })).status).toBe(201);
      const answer = await cutDuring('PATCH, cut before UPDATE', /UPDATE webhooks/, false, {
        method: 'PATCH',
        path: '/api/webhook/patch-me',
        cookie: m.cookie,
        body: { url: hook('changed'), transaction: null },
      });
      expect(shapeOf(answer)).toEqual(UNAVAILABLE);
      expect(await stateOf(m.organizationId)).toEqual({ webhooks: { 'patch-me': rowOf(body) }, sourceRows: 1 });
    });

    it('writes of every kind in flight at a timed cut each land whole or not at all, and every acknowledged one is present', async () => {
      // Two organizations, each with webhooks to patch, replace and delete; every write touches
      // its own name, so each name's final state is one of two, decided by that write alone.
      const orgs = [await t.member('owner'), await t.member('owner')];
      type Op = { what: string; org: number; request: Call; name: string; before: StoredRow | null; after: StoredRow | null };
      const ops: Op[] = [];
      for (const [o, m] of orgs.entries()) {
        for (let i = 0; i < 3; i++) {
          const old = fullBody(`o${o}-old-${i}`);
          for (const name of [`p${i}`, `r${i}`, `d${i}`]) {
            expect((await call({ method: 'POST', path: `/api/webhook/${name}`, cookie: m.cookie, body: old })).status).toBe(201);
          }
          const created = fullBody(`o${o}-new-${i}`);
          const patch = { url: hook(`o${o}-patched-${i}`), transaction: { updated: null }, user: null };
          const replaced = { url: hook(`o${o}-replaced-${i}`), card: { updated: hook(`o${o}-replaced-${i}/cu`) } };
          ops.push(
            {
              what: 'create',
              org: o,
              name: `c${i}`,
              before: null,
              after: rowOf(created),
              request: { method: 'POST', path: `/api/webhook/c${i}`, cookie: m.cookie, body: created },
            },
            {
              what: 'PATCH',
              org: o,
              name: `p${i}`,
              before: rowOf(old),
              after: { ...rowOf(old), url: patch.url, transaction_updated_url: null, user_updated_url: null },
              request: { method: 'PATCH', path: `/api/webhook/p${i}`, cookie: m.cookie, body: patch },
            },
            {
              what: 'legacy replace',
              org: o,
              name: `r${i}`,
              before: rowOf(old),
              after: rowOf(replaced),
              request: { method: 'POST', path: '/api/webhook', cookie: m.cookie, body: { name: `r${i}`, ...replaced } },
            },
            {
              what: i % 2 === 0 ? 'DELETE' : 'legacy DELETE',
              org: o,
              name: `d${i}`,
              before: rowOf(old),
              after: null,
              request:
                i % 2 === 0
                  ? { method: 'DELETE', path: `/api/webhook/d${i}`, cookie: m.cookie }
                  : { method: 'DELETE', path: '/api/webhook', cookie: m.cookie, body: { name: `d${i}` } },
            },
          );
        }
      }

      // Slow every round trip and stagger the starts, then cut as soon as a quarter of the
      // writes are answered: the cut finds writes in every phase (answered, mid-transaction,
      // committing, not yet begun).
      proxy.latencyMs = 20;
      let answeredBeforeCut = 0;
      let cutNow: () => void = () => undefined;
      const quarterAnswered = new Promise<void>((resolve) => (cutNow = resolve));
      const pending = ops.map(async (op, i) => {
        await new Promise((resolve) => setTimeout(resolve, i * 40));
        const answer = await call(op.request);
        if (!proxy.isCut && ++answeredBeforeCut >= ops.length / 4) cutNow();
        return answer;
      });
      await Promise.race([quarterAnswered, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      await proxy.cut('refuse');
      const cutAt = performance.now();
      const answers = await Promise.all(pending);
      const slowestAfterCut = Math.round(Math.max(...answers.map((a) => a.endedAt - cutAt)));
      if (slowestAfterCut > (longest.get('refuse')?.ms ?? -1))
        longest.set('refuse', { ms: slowestAfterCut, what: 'a write in flight at the cut, from the cut' });
      inFlight.push(`timed cut: the last in-flight write answered ${slowestAfterCut} ms after the cut`);
      proxy.latencyMs = 0;
      await proxy.restore();

      const states = await Promise.all(orgs.map((m) => stateOf(m.organizationId)));
      const outcomes = ops.map((op, i) => {
        const row = states[op.org].webhooks[op.name] ?? null;
        const landed = isDeepStrictEqual(row, op.after);
        return {
          op: `${op.what} o${op.org}/${op.name}`,
          status: answers[i].status,
          landed,
          whole: landed || isDeepStrictEqual(row, op.before),
          row,
        };
      });
      for (const o of outcomes) inFlight.push(`timed cut: ${o.op} answered ${o.status}, ${o.landed ? 'landed' : 'did not land'}`);
      const counts = outcomes.reduce<Record<number, number>>((acc, o) => ({ ...acc, [o.status]: (acc[o.status] ?? 0) + 1 }), {});
      inFlight.push(`timed cut: answers by status ${JSON.stringify(counts)}`);

      // Every write is whole (its target row is exactly before or exactly after), every 2xx landed,
      // every other answer is 503 unavailable, and the cut did catch some writes unanswered.
      expect(outcomes.filter((o) => !o.whole)).toEqual([]);
      expect(outcomes.filter((o) => o.status < 300 && !o.landed)).toEqual([]);
      expect(answers.filter((a) => a.status >= 300).map(shapeOf)).toEqual(answers.filter((a) => a.status >= 300).map(() => UNAVAILABLE));
      expect(answeredBeforeCut).toBeGreaterThanOrEqual(ops.length / 4);
      expect(answers.some((a) => a.status === 503)).toBe(true);
      expect(slowestAfterCut).toBeLessThan(CUT_BOUND_MS);
      for (const state of states) expectSourceInvariant(state);
    });
  });
});

/** Tally of the errors in the service's log lines, by message and driver error code. */
function loggedErrors(logs: readonly string[]): Record<string, number> {
  const tally: Record<string, number> = {};
  for (const line of logs) {
    let entry: { msg?: string; err?: { code?: unknown; message?: string } };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (entry.err === undefined) continue;
    const key = `${entry.msg}: ${String(entry.err.code ?? entry.err.message)}`;
    tally[key] = (tally[key] ?? 0) + 1;
  }
  return tally;
}
