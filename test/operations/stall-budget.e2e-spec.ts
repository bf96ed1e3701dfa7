import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../package.json';
import { MAX_JSON_MEMBERS, MAX_JSON_OBJECT_MEMBERS } from '../../src/http/json-structure';
import { freePorts } from '../support/ports';
import { runCli, startServer, waitForHealthy } from '../support/processes';

/*
 * Issue 39's stall budget: no request within the limits blocks the built server's event loop
 * longer than STALL_BUDGET_MS. For every route of the OpenAPI document and every kind of
 * credential, the worst bodies the limits allow (the most members, the deepest nesting, the
 * longest strings, the most array items, numbers at every edge, inherited keys), bare or in the
 * members the routes read; each answer a 4xx (a read may answer 2xx) of at most 16 KiB, /health
 * answering throughout. The server runs with the production Node flags (package.json), and the
 * loop's delay is the server's own: prom-client's `nodejs_eventloop_lag_max_seconds` (Node's
 * monitorEventLoopDelay, reset by each scrape), read before and after each request, and bounded by
 * the process's CPU in that time (`process_cpu_seconds_total`). A request
 * over the budget is sent again, RETRIES times at most, and judged by its least delay: what a
 * request costs comes back every time, a pause of the loaded machine does not.
 */

const STALL_BUDGET_MS = 50;
/** How many times a request over the budget is sent again before its least delay is judged. */
const RETRIES = 4;
/** prom-client's eventLoopMonitoringPrecision, its default. */
const LAG_RESOLUTION_MS = 10;
const MAX_ERROR_BODY = 16 * 1024;
const RUNS = 120;
const KiB = 1024;

/** The body limit of each path (docs/api.md 4, 10.1, 10.1.1), less room for the wrapping members. */
const roomOf = (path: string): number =>
  (path.endsWith('/events/batch') ? 1024 * KiB : path.endsWith('/events') ? 256 * KiB : 16 * KiB) - 256;

/** JSON text of at most `room` bytes of one shape: the worst of its kind the limits allow. */
const SHAPES: Record<string, (room: number) => string> = {
  members: (room) => objectOf(room, MAX_JSON_OBJECT_MEMBERS),
  membersPastOneObject: (room) => objectOf(room, MAX_JSON_OBJECT_MEMBERS + 1),
  membersInAll: (room) =>
    listOf(room, (i) => objectOf(room / 5 - 2, MAX_JSON_OBJECT_MEMBERS, i), MAX_JSON_MEMBERS / MAX_JSON_OBJECT_MEMBERS),
  objects: (room) => listOf(room, () => '{}', 19_990),
  depth: (room) => {
    const levels = Math.min(19_990, Math.floor(room / 2));
    return `${'['.repeat(levels)}${']'.repeat(levels)}`;
  },
  string: (room) => JSON.stringify('x'.repeat(room - 2)),
  escapes: (room) => `"${'\\u0000\\ud800'.repeat(Math.floor((room - 2) / 12))}"`,
  items: (room) => listOf(room, () => '0'),
  numbers: (room) => {
    const edges = ['1e308', '-1e308', '5e-324', '1e999', '-0', '9007199254740993', '123456789012345678901234567890', '0.1e-400'];
    return listOf(room, (i) => edges[i % edges.length]);
  },
  inherited: (room) => {
    const keys = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
    return listOf(room, () => `{${keys.map((key) => `"${key}":{"polluted":true}`).join(',')}}`, 2_000);
  },
};

/** `[item(0),item(1),…]` of at most `room` bytes and `most` items. */
function listOf(room: number, item: (i: number) => string, most = Infinity): string {
  const items: string[] = [];
  for (let length = 2; items.length < most;) {
    const next = item(items.length);
    if (length + next.length + 1 > room) break;
    items.push(next);
    length += next.length + 1;
  }
  return `[${items.join(',')}]`;
}

/** `{"m<prefix>_0":0,…}` of at most `room` bytes and `most` members. */
const objectOf = (room: number, most: number, prefix: number | string = '') =>
  `{${listOf(room, (i) => `"m${prefix}_${i}":0`, most).slice(1, -1)}}`;

/** Where a shape goes: the whole body, or a member the routes read (an event's data, a batch's events, a webhook's url or auth...). */
const PLACEMENTS: Record<string, (shape: string) => string> = {
  body: (shape) => shape,
  member: (shape) => `{"url":${shape}}`,
  unknownMember: (shape) => `{"extra":${shape}}`,
  auth: (shape) => `{"url":"https://1.1.1.1/a","auth":{"type":"mtls","certificate":${shape}}}`,
  group: (shape) => `{"url":"https://1.1.1.1/a","transaction":{"created":${shape}}}`,
  headers: (shape) => `{"url":"https://1.1.1.1/a","headers":${shape}}`,
  event: (shape) => `{"type":"user.updated","organization":987654,"data":{"a":${shape}}}`,
  batch: (shape) => `{"events":[{"type":"user.updated","organization":987654,"data":{"a":${shape}}}]}`,
  batchEvents: (shape) => `{"events":${shape}}`,
};

interface Route {
  readonly method: string;
  readonly path: string;
}
interface Seen {
  readonly status: number;
  readonly bytes: number;
  readonly lagMs: number;
}

describe('the stall budget of the built server (issue 39)', () => {
  let cwd: string;
  let port: number;
  let metricsPort: number;
  let server: ReturnType<typeof startServer>;
  let routes: Route[];
  let credentials: Record<string, Record<string, string>>;
  const health: number[] = [];
  let pinging: NodeJS.Timeout;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'platform-api-stall-'));
    [port, metricsPort] = await freePorts(2);
    const env = { DATABASE_URL: `sqlite:${join(cwd, 'db.sqlite')}`, SECRET_KEY: randomBytes(32).toString('base64') };
    const cli = async (...args: string[]) => JSON.parse((await runCli(args, env, cwd)).stdout) as Record<string, unknown>;
    const { id: org } = await cli('org', 'create', '--name', 'Acme');
    const { id: other } = await cli('org', 'create', '--name', 'Other');
    const { id: user } = await cli('user', 'create', '--email', 'ann@acme.test');
    await cli('member', 'add', '--org', String(org), '--user', String(user), '--role', 'owner');
    const session = await cli('session', 'create', '--user', String(user), '--org', String(org));
    const key = await cli('platform-key', 'create', '--name', 'producer');
    const scoped = await cli('platform-key', 'create', '--name', 'scoped', '--org', String(other));
    const wallet = await cli('wallet-token', 'create', '--user', String(user));
    credentials = {
      none: {},
      session: { cookie: `__Secure-auth.session_token=${String(session.token)}` },
      'platform key': { authorization: `Bearer ${String(key.token)}` },
      'scoped platform key': { authorization: `Bearer ${String(scoped.token)}` },
      'wallet token': { authorization: `Bearer ${String(wallet.token)}` },
    };
    server = startServer(
      {
        ...env,
        HOST: '127.0.0.1',
        PORT: String(port),
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'error',
        DELIVERY_CONCURRENCY: '0',
        RATE_LIMIT_PER_SESSION: '1000000',
        RATE_LIMIT_PER_ORGANIZATION: '1000000',
        RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS: '1000000',
        RATE_LIMIT_PER_WALLET_TOKEN: '1000000',
        RATE_LIMIT_ACTIONS_PER_WEBHOOK: '1000000',
      },
      cwd,
      config.nodeFlags.split(' '),
    );
    await waitForHealthy(`http://127.0.0.1:${port}/health`, 30_000);
    const document = (await (await fetch(`http://127.0.0.1:${port}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method) => ({
          method: method.toUpperCase(),
          path: path.replace(/\{[^}]+\}/g, (name) => (/id/i.test(name) ? '987654' : 'stall-budget')),
        })),
    );
    pinging = setInterval(() => {
      fetch(`http://127.0.0.1:${port}/health`).then(
        (res) => health.push(res.status),
        () => health.push(0),
      );
    }, 25);
  }, 120_000);
  afterAll(async () => {
    clearInterval(pinging);
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await server.exited;
    rmSync(cwd, { recursive: true, force: true });
  });

  /**
   * The server's own readings since the last scrape: how late its event loop was at most (the
   * histogram holds the time between two of its timer's ticks, one every LAG_RESOLUTION_MS when
   * nothing blocks), and the CPU the process used, both in ms.
   */
  const scrape = async (): Promise<{ lateMs: number; cpuMs: number }> => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)![1]) * 1000;
    return {
      lateMs: Math.max(0, gauge('nodejs_eventloop_lag_max_seconds') - LAG_RESOLUTION_MS),
      cpuMs: gauge('process_cpu_seconds_total'),
    };
  };

  /**
   * One request and how long it blocked the event loop: the loop's lateness, but never more than
   * the CPU the process used meanwhile (on a loaded machine the loop also waits for a core, which
   * no work of ours causes; a block of our own is CPU, and shows in both).
   */
  const once = async ({ method, path }: Route, credential: string, body: string): Promise<Seen> => {
    const before = await scrape();
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { ...credentials[credential], 'content-type': 'application/json' },
      body: method === 'GET' ? undefined : body,
    });
    const bytes = (await res.arrayBuffer()).byteLength;
    const after = await scrape();
    return { status: res.status, bytes, lagMs: Math.min(after.lateMs, after.cpuMs - before.cpuMs) };
  };

  /** The request's answer, and its least delay of the loop over at most 1 + RETRIES tries. */
  const judged = async (route: Route, credential: string, body: string): Promise<Seen> => {
    let seen = await once(route, credential, body);
    for (let retry = 0; retry < RETRIES && seen.lagMs > STALL_BUDGET_MS; retry++) {
      const again = await once(route, credential, body);
      seen = { ...again, lagMs: Math.min(seen.lagMs, again.lagMs) };
    }
    return seen;
  };

  const expectWithinBudget = (route: Route, credential: string, shape: string, placement: string, seen: Seen) => {
    const what = `${route.method} ${route.path} with ${credential}, ${shape} as ${placement}: ${JSON.stringify(seen)}`;
    const read = route.method === 'GET';
    expect(read ? seen.status < 500 : seen.status >= 400 && seen.status < 500, what).toBe(true);
    expect(seen.bytes, what).toBeLessThan(MAX_ERROR_BODY);
    expect(seen.lagMs, what).toBeLessThanOrEqual(STALL_BUDGET_MS);
  };

  it('keeps every route with every credential within the budget for the most members one object may hold', async () => {
    for (const route of routes) {
      for (const credential of Object.keys(credentials)) {
        const body = PLACEMENTS[route.path.includes('/events') ? 'event' : 'body'](SHAPES.members(roomOf(route.path)));
        expectWithinBudget(route, credential, 'members', 'body', await judged(route, credential, body));
      }
    }
  }, 180_000);

  it.each(['/api/events', '/api/events/batch'])(
    'keeps %s, whose bodies are the largest, within the budget for the worst body of every kind in every place, with a platform key',
    async (path) => {
      for (const shape of Object.keys(SHAPES)) {
        for (const placement of Object.keys(PLACEMENTS)) {
          const route = { method: 'POST', path };
          const body = PLACEMENTS[placement](SHAPES[shape](roomOf(path)));
          expectWithinBudget(route, 'platform key', shape, placement, await judged(route, 'platform key', body));
        }
      }
    },
    180_000,
  );

  it('keeps every route within the budget for the worst bodies of every kind the limits allow, wherever they are', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.constantFrom(...Object.keys(credentials)),
        fc.constantFrom(...Object.keys(SHAPES)),
        fc.constantFrom(...Object.keys(PLACEMENTS)),
        async (route, credential, shape, placement) => {
          const body = PLACEMENTS[placement](SHAPES[shape](roomOf(route.path)));
          expectWithinBudget(route, credential, shape, placement, await judged(route, credential, body));
        },
      ),
      { numRuns: RUNS },
    );
  }, 300_000);

  it('answers /health throughout, and the process logged no error', () => {
    expect(health.length).toBeGreaterThan(0);
    expect(health.filter((status) => status !== 200)).toEqual([]);
    expect({ exitCode: server.child.exitCode, errors: server.output.join('') }).toEqual({ exitCode: null, errors: '' });
  });
});
