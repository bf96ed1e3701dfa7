// What the delivery benchmarks share (delivery.mjs: W6, W7, the ceiling; isolation.mjs: W8, W9,
// W11; throughput.mjs: W10; burst.mjs: W12): the receiver process, a service (a fresh database,
// organizations with their webhooks, a platform key, one or more servers on it), a load
// generator that offers events at a fixed rate and records when each was accepted, and the
// MariaDB server's count of prepared statements (docs/api.md 9: at most 256 per instance).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import mysql from 'mysql2/promise';
import {
  API_PREFIX,
  atCleanup,
  BenchError,
  cli,
  createDatabase,
  expectStatus,
  requireDist,
  requirePortFree,
  ROOT,
  serviceEnv,
  startDns,
  startServer,
  stop,
  waitForHealth,
} from './harness.mjs';

export const RECEIVER_HOST = 'receiver.example.com';
export const CA_FILE = join(ROOT, 'test', 'support', 'tls', 'ca.pem');
/** No limit may answer 429 during the load; the limiter still counts every request. */
const UNLIMITED = {
  RATE_LIMIT_PER_SESSION: '1000000000',
  RATE_LIMIT_PER_ORGANIZATION: '1000000000',
  RATE_LIMIT_PER_PLATFORM_KEY: '1000000000',
};

export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const percentile = (sorted, p) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * What every delivery benchmark starts with: dist/ built, its `ports` ports free from
 * `config.port` on, a new secret key, the bench's DNS server (`dnsServer`: startDns, or
 * startControlledDns where a benchmark stalls names) and the receiver behind its proxy.
 */
export async function prepareBench(config, { ports = 1, dnsServer = startDns } = {}) {
  requireDist();
  for (let i = 0; i < ports; i++) await requirePortFree(config.port + i);
  return { secretKey: randomBytes(32).toString('base64'), dns: await dnsServer(), receiver: await startReceiver() };
}

/** bench/receiver.mjs as a child: its proxy URL, and a way to ask it what arrived and what its bad receivers saw. */
export async function startReceiver() {
  const child = fork(join(ROOT, 'bench', 'receiver.mjs'), { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  atCleanup(() => child.kill('SIGTERM'));
  const { proxyUrl } = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) resolve(JSON.parse(text));
    });
    child.once('exit', (code) => reject(new BenchError(`bench/receiver.mjs exited (${code})`)));
  });
  const ask = (cmd) =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send({ cmd });
    });
  return {
    proxyUrl,
    /** The receiver's (and its proxy's) process, for CPU readings. */
    pid: child.pid,
    arrivals: async () => new Map((await ask('arrivals')).arrivals),
    /** {distinct, lastAt}: (webhook-id, path) pairs arrived, for events that go to many webhooks. */
    distinct: () => ask('distinct'),
    bad: () => ask('bad'),
    /** {tokenRequests, unauthorized} since it started (W14). */
    oauth: () => ask('oauth'),
    reset: () => child.send({ cmd: 'reset' }),
  };
}

/**
 * A fresh database with one organization per entry of `organizations` (each `{name: url}` of
 * webhooks), an owner's session, a platform key, and `instances` servers on it (ports
 * config.port, config.port + 1, …) delivering through the receiver's proxy; `serverOptions` as
 * startServer's.
 */
export async function startService(config, secretKey, dns, receiver, { organizations, instances = 1, env = {}, serverOptions = {} }) {
  const database = await createDatabase(config.mariadb);
  const cliEnv = serviceEnv(secretKey, database.url);
  const { id: user } = await cli(cliEnv, 'user', 'create', '--email', 'owner@acme.test');
  const orgs = [];
  for (const webhooks of organizations) {
    const { id: org } = await cli(cliEnv, 'org', 'create', '--name', 'Acme');
    await cli(cliEnv, 'member', 'add', '--org', String(org), '--user', String(user), '--role', 'owner');
    const { token } = await cli(cliEnv, 'session', 'create', '--user', String(user), '--org', String(org));
    orgs.push({ id: org, cookie: `__Secure-auth.session_token=${token}`, webhooks });
  }
  const { token: key } = await cli(cliEnv, 'platform-key', 'create', '--name', 'bench');
  const servers = [];
  const apis = [];
  /** The next server (port config.port + how many were started before), `extra` over `env`. */
  const launch = async (extra = {}, options = serverOptions) => {
    const server = startServer(
      serviceEnv(secretKey, database.url, {
        PORT: String(config.port + servers.length),
        HOST: '127.0.0.1',
        DNS_SERVERS: dns,
        LOG_LEVEL: 'warn',
        DELIVERY_PROXY_URL: receiver.proxyUrl,
        DELIVERY_CA_FILE: CA_FILE,
        ...UNLIMITED,
        ...env,
        ...extra,
      }),
      options,
    );
    await waitForHealth(server);
    servers.push(server);
    apis.push(`http://127.0.0.1:${server.port}${API_PREFIX}`);
    return server;
  };
  for (let i = 0; i < instances; i++) await launch();
  for (const org of orgs) {
    // A webhook is its URL, or the body of its create (its URL and more: `ordered`, a rate limit…).
    for (const [name, webhook] of Object.entries(org.webhooks)) {
      const body = typeof webhook === 'string' ? { url: webhook } : webhook;
      await expectStatus(201, 'POST', `${apis[0]}/webhook/${name}`, { headers: { Cookie: org.cookie }, body });
    }
  }
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  return {
    servers,
    apis,
    headers,
    orgs,
    database,
    deleteWebhook: (org, name) => expectStatus(200, 'DELETE', `${apis[0]}/webhook/${name}`, { headers: { Cookie: org.cookie } }),
    /** The MariaDB server's prepared statements now (see preparedStatements). */
    preparedStatements: () => preparedStatements(config.mariadb, database.name),
    /** One SQL query on the service's database (for what the bench reports of the queue). */
    query: async (sql, params = []) => {
      const connection = await mysql.createConnection({ uri: database.url });
      try {
        return (await connection.query(sql, params))[0];
      } finally {
        await connection.end();
      }
    },
    /** One more server on the same database (bench/phases.mjs), with `extra` over the first ones' environment; `options` as startServer's. */
    startAnother: launch,
    stop: async () => {
      for (const server of servers) await stop(server.child);
      await database.drop();
    },
  };
}

/**
 * Offers `rate` events per second for `seconds`, to the organizations in turn, posted to the
 * service's instances in turn; the 202 time of each accepted event id. `behind` counts the
 * events that found 512 requests still unanswered (the load generator would have been the limit).
 */
export async function offer(service, orgs, rate, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const accepted = new Map();
  let failures = 0;
  let inFlight = 0;
  let behind = 0;
  const started = performance.now();
  const total = Math.round(rate * seconds);
  let sent = 0;
  const post = (n) =>
    new Promise((resolve) => {
      inFlight++;
      const api = service.apis[n % service.apis.length];
      const req = http.request(`${api}/events`, { method: 'POST', agent, headers: service.headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          inFlight--;
          if (res.statusCode === 202) accepted.set(JSON.parse(text).id, now());
          else failures++;
          resolve();
        });
      });
      req.on('error', () => (inFlight--, failures++, resolve()));
      req.end(
        JSON.stringify({ type: 'transaction.created', organization: orgs[n % orgs.length].id, data: { amount: n, currency: 'EUR' } }),
      );
    });
  const pending = [];
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; sent < due; sent++) {
      if (inFlight >= 512) behind++;
      pending.push(post(sent));
    }
    await sleep(2);
  }
  await Promise.all(pending);
  agent.destroy();
  return { accepted, failures, behind, offeredSeconds: (performance.now() - started) / 1000 };
}

/**
 * offer() with the events in batches of `batch` (POST /events/batch): the same events (to the
 * organizations in turn) at the same rate, a request carrying the next `batch` of them, posted to
 * the instances in turn. The 202 time of each event accepted.
 */
export async function offerBatches(service, rate, seconds, batch) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const orgs = service.orgs;
  const accepted = new Map();
  let failures = 0;
  let inFlight = 0;
  let behind = 0;
  const started = performance.now();
  const total = Math.round(rate * seconds);
  const post = (first, count, n) =>
    new Promise((resolve) => {
      inFlight++;
      const api = service.apis[n % service.apis.length];
      const events = Array.from({ length: count }, (_, i) => ({
        type: 'transaction.created',
        organization: orgs[(first + i) % orgs.length].id,
        data: { amount: first + i, currency: 'EUR' },
      }));
      const req = http.request(`${api}/events/batch`, { method: 'POST', agent, headers: service.headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          inFlight--;
          if (res.statusCode === 202) {
            const at = now();
            for (const { id } of JSON.parse(text).events) accepted.set(id, at);
          } else failures += count;
          resolve();
        });
      });
      req.on('error', () => (inFlight--, (failures += count), resolve()));
      req.end(JSON.stringify({ events }));
    });
  const pending = [];
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    while (sent < total && due - sent >= Math.min(batch, total - sent)) {
      const count = Math.min(batch, total - sent);
      if (inFlight >= 64) behind++;
      pending.push(post(sent, count, pending.length));
      sent += count;
    }
    await sleep(2);
  }
  await Promise.all(pending);
  agent.destroy();
  return { accepted, failures, behind, offeredSeconds: (performance.now() - started) / 1000 };
}

/** Waits up to `ms` for every accepted event to arrive; the arrival times. */
export async function arrivalsOf(receiver, accepted, ms = 10_000) {
  let arrivals = await receiver.arrivals();
  for (let waited = 0; waited < ms && [...accepted.keys()].some((id) => !arrivals.has(id)); waited += 250) {
    await sleep(250);
    arrivals = await receiver.arrivals();
  }
  return arrivals;
}

/** 202→arrival latencies of the accepted events that arrived, and how many arrived within [from, to]. */
export function latencies(accepted, arrivals, from, to) {
  const sorted = [...accepted]
    .filter(([id]) => arrivals.has(id))
    .map(([id, at]) => arrivals.get(id) - at)
    .sort((a, b) => a - b);
  const inWindow = [...accepted.keys()].filter((id) => arrivals.has(id) && arrivals.get(id) >= from && arrivals.get(id) <= to).length;
  return { sorted, arrived: sorted.length, inWindow };
}

/**
 * The MariaDB server's `Prepared_stmt_count` (statements prepared by every client of the server
 * and not yet closed) and how many other clients are connected: the count is the service's own
 * only when that is 0. `ours` names the service's database; the bench's own connections to it
 * count as the service's (they prepare nothing: mysql2's query() sends text).
 */
export async function preparedStatements(server, ours) {
  const connection = await mysql.createConnection({ uri: server.href });
  try {
    const [[status]] = await connection.query("SHOW GLOBAL STATUS LIKE 'Prepared_stmt_count'");
    const [[{ others }]] = await connection.query(
      `SELECT COUNT(*) AS others FROM information_schema.PROCESSLIST
        WHERE ID <> CONNECTION_ID() AND USER <> 'system user' AND (DB IS NULL OR DB <> ?)`,
      [ours ?? ''],
    );
    return { count: Number(status.Value), others: Number(others) };
  } finally {
    await connection.end();
  }
}

/** One line on the prepared statements: `readings` is [[label, {count, others}], …]. */
export function preparedStatementsLine(readings, instances, bound = 256 * instances) {
  const worst = Math.max(...readings.map(([, r]) => r.count));
  const others = Math.max(...readings.map(([, r]) => r.others));
  return (
    `Prepared statements on the MariaDB server (\`Prepared_stmt_count\`): ${readings.map(([label, r]) => `${label} ${r.count}`).join('; ')}` +
    `; bound ${bound} (256 per instance × ${instances}): ${worst <= bound ? 'within' : 'OVER'}.` +
    (others > 0 ? ` Other clients were connected to the server (up to ${others}): the count includes theirs.` : '')
  );
}
