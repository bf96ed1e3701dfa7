// What the benchmark scripts share (run.mjs: W1-W5 and cold starts; delivery.mjs: W6-W7;
// isolation.mjs: W8, W9, W11; throughput.mjs: W10; burst.mjs: W12; ab.mjs: the A/B comparison):
// configuration from the environment, cleanup of everything started, MariaDB databases, the
// built service's processes (server and CLI, launched as production launches them), the service
// seeded with the baseline's data set (run.mjs and ab.mjs --floor), a plain HTTP client, the DNS
// server process, the load generators (wrk and autocannon), and /proc readings of a process's
// memory and CPU.
import { execFile, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import autocannon from 'autocannon';
import mysql from 'mysql2/promise';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIST = join(ROOT, 'dist');
export const RESULTS = join(ROOT, 'bench', 'results');
export const API_PREFIX = '/api';

/** Linux reports process CPU time in clock ticks of 1/100 s (USER_HZ). */
export const TICKS_PER_SECOND = 100;

/** A failure with a message that says it all: printed without a stack trace. */
export class BenchError extends Error {}

// ---- configuration ------------------------------------------------------------------------

export function intFromEnv(name, fallback, min, raw = process.env[name]) {
  if (raw === undefined || raw === '') return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min)) throw new BenchError(`${name}: expected a whole number >= ${min}, got ${JSON.stringify(process.env[name])}`);
  return value;
}

/** Seconds, written bare ("10") or as load.sh writes them ("10s"). */
export const secondsFromEnv = (name, fallback) => intFromEnv(name, fallback, 1, process.env[name]?.replace(/s$/, ''));

/** The MariaDB server URL; the bench creates (and drops) its own databases on it. */
export function parseServerUrl(value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') || url.hostname === '') {
    throw new BenchError('BENCH_DATABASE_URL: expected mysql://user[:pass]@host[:port]');
  }
  if (url.pathname !== '' && url.pathname !== '/') {
    throw new BenchError('BENCH_DATABASE_URL: name the server only (no /database): the bench creates its own databases');
  }
  return url;
}

/** The server URL with a database, for DATABASE_URL. */
export function databaseUrl(server, name) {
  const url = new URL(server.href);
  url.pathname = `/${name}`;
  return url.href;
}

/** For messages: never the password. */
export const shown = (server) => `${server.protocol}//${server.username || '(no user)'}@${server.host}`;

// ---- cleanup: everything started is stopped, on success, failure and Ctrl-C ----------------

const cleanups = [];
export const atCleanup = (fn) => cleanups.push(fn);

export async function cleanUp() {
  while (cleanups.length > 0) {
    try {
      await cleanups.pop()();
    } catch (error) {
      log(`cleanup: ${error.message}`);
    }
  }
}

/**
 * Runs a bench's `main`, cleans up, and exits: 130 when interrupted (Ctrl-C, SIGTERM) unless
 * `servingUntilStopped()` says a signal is how this run ends, 1 when `main` threw (a BenchError
 * by its message, anything else with its stack), else process.exitCode (a bench sets it for
 * failed requests).
 */
export async function runBench(main, { servingUntilStopped = () => false } = {}) {
  const interrupted = new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => resolve(signal));
  });
  let status = 0;
  try {
    const signal = await Promise.race([main().then(() => undefined), interrupted]);
    if (signal !== undefined && !servingUntilStopped()) {
      log(`${signal}: stopping and cleaning up`);
      status = 130;
    }
  } catch (error) {
    process.stderr.write(error instanceof BenchError ? `bench: ${error.message}\n` : `bench: ${error.stack ?? error}\n`);
    status = 1;
  } finally {
    await cleanUp();
  }
  process.exit(status || process.exitCode || 0);
}

/** SIGTERM, then SIGKILL if the child has not exited after `graceMs`. */
export async function stop(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Spawns a child that is stopped at cleanup if it is still running. */
export function spawnTracked(command, args, options) {
  const child = spawn(command, args, options);
  atCleanup(() => stop(child));
  return child;
}

// ---- output -------------------------------------------------------------------------------

/** Progress on stderr; the results alone go to stdout. */
export const log = (line) => process.stderr.write(`bench: ${line}\n`);
export const out = (line = '') => process.stdout.write(`${line}\n`);
export const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
export const mb = (kb) => kb / 1024;

// ---- prerequisites ------------------------------------------------------------------------

export function requireDist() {
  for (const file of ['main.js', 'cli.js']) {
    if (!existsSync(join(DIST, file))) {
      throw new BenchError(`dist/${file} is missing: run \`npm run build\` first (\`npm run bench\` builds when stale)`);
    }
  }
}

/** A port on 127.0.0.1 that was free a moment ago (the OS's choice). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

export function requirePortFree(port) {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) =>
      reject(new BenchError(`port ${port} on 127.0.0.1 is not free (${error.code}): stop what uses it or set BENCH_PORT`)),
    );
    probe.listen(port, '127.0.0.1', () => probe.close(resolve));
  });
}

export async function withMariadb(server, work) {
  let connection;
  try {
    connection = await mysql.createConnection({ uri: server.href, connectTimeout: 5000 });
  } catch (error) {
    throw new BenchError(
      `MariaDB unreachable at ${shown(server)} (${error.code ?? error.message}): start it, or point BENCH_DATABASE_URL at one`,
    );
  }
  try {
    return await work(connection);
  } finally {
    await connection.end();
  }
}

/** A fresh, empty database; dropped at cleanup (again, if `drop` was called: IF EXISTS) unless kept. */
export async function createDatabase(server, { keep = false } = {}) {
  const name = `pa_bench_${randomBytes(6).toString('hex')}`;
  await withMariadb(server, (c) => c.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`));
  const drop = () => withMariadb(server, (c) => c.query(`DROP DATABASE IF EXISTS ${name}`));
  if (!keep) atCleanup(drop);
  return { name, url: databaseUrl(server, name), drop };
}

// ---- HTTP client for seeding, checks and /health (node:http: no lazy-loaded client in the
// way of the cold-start measurement) ---------------------------------------------------------

export function request(method, url, { headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, {
      method,
      agent: false,
      headers:
        payload === undefined ? headers : { ...headers, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
    });
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.once('end', () => resolve({ status: res.statusCode, text }));
      res.once('error', reject);
    });
    req.end(payload);
  });
}

export async function expectStatus(expected, method, url, options) {
  const { status, text } = await request(method, url, options);
  if (status !== expected) throw new BenchError(`${method} ${url} answered ${status}, expected ${expected}: ${text.slice(0, 300)}`);
  return text;
}

// ---- the service's processes --------------------------------------------------------------

/** The environment of the server and the CLI: the same SECRET_KEY and DATABASE_URL for both. */
export function serviceEnv(secretKey, url, extra = {}) {
  return { PATH: process.env.PATH, NODE_ENV: 'production', LOG_LEVEL: 'info', SECRET_KEY: secretKey, DATABASE_URL: url, ...extra };
}

const execFileAsync = promisify(execFile);

/** `node dist/cli.js …`: its one JSON object. Errors name the command, never its arguments (secrets). */
export async function cli(env, ...args) {
  try {
    const { stdout } = await execFileAsync(process.execPath, [join(DIST, 'cli.js'), ...args], { env, cwd: ROOT });
    return JSON.parse(stdout);
  } catch (error) {
    throw new BenchError(`cli ${args.slice(0, 2).join(' ')} failed: ${(error.stderr || error.message).trim()}`);
  }
}

/** The V8 heap settings production runs with (package.json config.nodeFlags, npm run start:prod). */
export const NODE_FLAGS = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).config.nodeFlags.split(' ');

/**
 * Starts `node dist/main.js` as production does; `startedAt` is taken just before the spawn. stdout (the request
 * log) goes to `logFile` or nowhere; the tail of stderr is kept for error messages.
 */
export function startServer(env, { cwd = ROOT, logFile, profileDir = process.env.BENCH_PROFILE_DIR, nodeArgs = [] } = {}) {
  const stdout = logFile === undefined ? 'ignore' : openSync(logFile, 'w');
  const startedAt = performance.now();
  // BENCH_PROFILE_DIR (or `profileDir`): the server writes a V8 CPU profile there when it exits (Chrome DevTools opens it);
  // `nodeArgs`: more of Node's options (bench/phases.mjs: --require bench/sql-census.cjs).
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawnTracked(process.execPath, [...NODE_FLAGS, ...profile, ...nodeArgs, join(DIST, 'main.js')], {
    env,
    cwd,
    stdio: ['ignore', stdout, 'pipe'],
  });
  if (typeof stdout === 'number') closeSync(stdout);
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  return { child, startedAt, port: Number(env.PORT), stderr: () => stderr.trim() };
}

/** Polls /health every 10 ms; resolves to the time (performance.now()) of the first 200. */
export async function waitForHealth(server, timeoutMs = 60_000) {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new BenchError(
        `the server exited (${server.child.exitCode ?? server.child.signalCode}) before /health answered 200: ${server.stderr()}`,
      );
    }
    const status = await request('GET', `http://127.0.0.1:${server.port}/health`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return performance.now();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new BenchError(`/health did not answer 200 within ${timeoutMs / 1000} s: ${server.stderr()}`);
}

/** The DNS server of bench/dns-server.mjs, in its own process; resolves to its ip:port. */
export async function startDns() {
  return (await startControlledDns()).address;
}

/**
 * The same, with its controls (bench/dns-server.mjs): `stall()` and `resume()` the names of its
 * STALL_ZONE; `stalled()` resolves to the queries it has left unanswered.
 */
export async function startControlledDns() {
  const child = spawnTracked(process.execPath, [join(ROOT, 'bench', 'dns-server.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  // Its stdout, a line at a time: the address first, then one line per `count`.
  const waiting = [];
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    const lines = (stdout + chunk).split('\n');
    stdout = lines.pop();
    for (const line of lines) waiting.shift()?.resolve(line.trim());
  });
  const nextLine = () => new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  child.once('exit', (code) => {
    for (const { reject } of waiting.splice(0)) reject(new BenchError(`bench/dns-server.mjs exited (${code}): ${stderr.trim()}`));
  });
  const address = await nextLine();
  child.stdin.on('error', () => undefined); // it exited: reported by the next `stalled()`
  const send = (line) => child.stdin.write(`${line}\n`);
  return {
    address,
    stall: () => send('stall'),
    resume: () => send('resume'),
    stalled: async () => {
      const line = nextLine();
      send('count');
      return JSON.parse(await line).stalled;
    },
  };
}

// ---- the service seeded with the data set of ../shared/perf/baseline/seed.mjs (run.mjs, and
// side B of ab.mjs --floor) ------------------------------------------------------------------

export const HOOKS = 10;
export const HOOK_NAME = 'hook-01';
const TTL_ONE_YEAR = '31536000';

const EVENTS = [
  ['transaction', 'created'],
  ['transaction', 'updated'],
  ['transaction', 'completed'],
  ['card', 'updated'],
  ['user', 'updated'],
];

/** Webhook i (1-based): url + two event URLs, rotating through the events as seed.mjs does. */
export function webhookBody(name, i) {
  const [groupA, eventA] = EVENTS[(i - 1) % 5];
  const [groupB, eventB] = EVENTS[i % 5];
  const body = { url: `https://hooks.acme-example.com/platform/${name}` };
  (body[groupA] ??= {})[eventA] = `https://hooks.acme-example.com/platform/${name}/${groupA}.${eventA}`;
  (body[groupB] ??= {})[eventB] = `https://events.acme-example.com/${name}?event=${groupB}.${eventB}`;
  return body;
}

export const hookName = (i) => `hook-${String(i).padStart(2, '0')}`;

/** Organization, owner session, wallet user with a token and an active card: the CLI's part. */
async function seedThroughCli(env) {
  const { id: org } = await cli(env, 'org', 'create', '--name', 'Acme');
  const { id: owner } = await cli(env, 'user', 'create', '--email', 'owner@acme.test', '--name', 'Owner');
  await cli(env, 'member', 'add', '--org', String(org), '--user', String(owner), '--role', 'owner');
  const { token: session } = await cli(env, 'session', 'create', '--user', String(owner), '--org', String(org), '--ttl', TTL_ONE_YEAR);
  const { id: walletUser } = await cli(env, 'user', 'create', '--email', 'wallet@acme.test', '--name', 'Wallet User');
  await cli(env, 'member', 'add', '--org', String(org), '--user', String(walletUser), '--role', 'member');
  const { token: wallet } = await cli(env, 'wallet-token', 'create', '--user', String(walletUser), '--ttl', TTL_ONE_YEAR);
  const { id: issuer } = await cli(env, 'issuer', 'create', '--name', 'Example Issuer');
  await cli(
    env,
    'card',
    'create',
    '--user',
    String(walletUser),
    '--org',
    String(org),
    '--issuer',
    String(issuer),
    '--provisioning-id',
    `prov_${randomBytes(12).toString('hex')}`,
    '--provisioning-secret',
    randomBytes(32).toString('base64'),
  );
  return { session, wallet };
}

/** The 10 webhooks, through the API (so through the URL rules and the DNS server). */
async function seedThroughApi(api, session) {
  const headers = { Cookie: `__Secure-auth.session_token=${session}` };
  for (let i = 1; i <= HOOKS; i++) {
    await expectStatus(201, 'POST', `${api}/webhook/${hookName(i)}`, { headers, body: webhookBody(hookName(i), i) });
  }
}

/** Fresh statistics so the optimizer sees the real (tiny) tables, as seed.mjs does. */
async function analyze(server, database) {
  await withMariadb(server, async (c) => {
    const [rows] = await c.query(`SHOW TABLES FROM ${database}`);
    const tables = rows.map((row) => `${database}.\`${Object.values(row)[0]}\``);
    await c.query(`ANALYZE TABLE ${tables.join(', ')}`);
  });
}

/**
 * A fresh MariaDB database `pa_bench_<random>` on `mariadb` (dropped at cleanup unless `keep`),
 * seeded with the baseline's data set: through the CLI an organization, an owner with a one-year
 * session in it, a member with a one-year wallet_extension token and an active card with an issuer
 * and provisioning credentials; then the built server started on it as in production, on
 * 127.0.0.1:`port` with the bench's DNS server (`dns`, ip:port) and the rate limits lifted (the
 * limiter still counts every request; WEBHOOKS_PER_ORG_MAX leaves room for one extra webhook per
 * connection, W5); through the API the webhooks hook-01 to hook-10; then ANALYZE TABLE, as
 * seed.mjs does. The server's stdout (its request log) goes to `serverLog`, or nowhere. Resolves to
 * { database, server, api, tokens }: `api` the base URL with the prefix, `tokens` what a tokens
 * file holds ({ session, wallet, name }).
 */
export async function startSeededService({ mariadb, port, dns, connections, serverLog, keep = false, secretKey }) {
  secretKey ??= randomBytes(32).toString('base64');
  const database = await createDatabase(mariadb, { keep });
  log(`seeding ${keep ? 'kept ' : ''}database ${database.name} on ${shown(mariadb)} through the CLI`);
  const { session, wallet } = await seedThroughCli(serviceEnv(secretKey, database.url));
  const server = startServer(
    serviceEnv(secretKey, database.url, {
      PORT: String(port),
      HOST: '127.0.0.1',
      DNS_SERVERS: dns,
      // The defaults (300 per session and per wallet token, 1200 per organization and minute) would answer 429
      // within a second of load; the limiter still counts every request.
      RATE_LIMIT_PER_SESSION: '1000000000',
      RATE_LIMIT_PER_ORGANIZATION: '1000000000',
      RATE_LIMIT_PER_WALLET_TOKEN: '1000000000',
      RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS: '1000000000',
      // W5 keeps up to one extra webhook per connection beside the seeded ones.
      WEBHOOKS_PER_ORG_MAX: String(Math.max(100, HOOKS + connections)),
    }),
    { logFile: serverLog },
  );
  await waitForHealth(server);
  const api = `http://127.0.0.1:${port}${API_PREFIX}`;
  const logShown = serverLog === undefined ? 'none' : relative(ROOT, serverLog).startsWith('..') ? serverLog : relative(ROOT, serverLog);
  log(`seeding ${HOOKS} webhooks through the API (server pid ${server.child.pid}, log ${logShown})`);
  await seedThroughApi(api, session);
  await analyze(mariadb, database.name);
  return { database, server, api, tokens: { session, wallet, name: HOOK_NAME } };
}

// ---- load generators ----------------------------------------------------------------------

export const onPath = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

// wrk: headers from WRK_HEADERS, as ../shared/perf/wrk/headers.lua does. With WRK_BODIES (one
// JSON body per line) each request takes the next body in turn; without, request() stays
// undefined and wrk keeps its static, pre-built request (no per-request Lua work), as load.sh.
export const WRK_LUA = `
for line in (os.getenv("WRK_HEADERS") or ""):gmatch("[^\\r\\n]+") do
  local name, value = line:match("^%s*([^:%s]+)%s*:%s*(.-)%s*$")
  if name then wrk.headers[name] = value end
end
local bodies = {}
for body in (os.getenv("WRK_BODIES") or ""):gmatch("[^\\n]+") do bodies[#bodies + 1] = body end
if #bodies > 0 then
  wrk.method = os.getenv("WRK_METHOD")
  wrk.headers["Content-Type"] = "application/json"
  local n = 0
  function request()
    n = n + 1
    return wrk.format(nil, nil, nil, bodies[n % #bodies + 1])
  end
end
`;

/** wrk prints 812.00us / 1.23ms / 1.05s / 1.20m / 1.00h: to milliseconds. */
export function wrkMs(text) {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text ?? '');
  if (!match) return NaN;
  return Number(match[1]) * { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2]];
}

/**
 * One wrk run with `luaFile` (WRK_LUA written to a file), latency percentiles on: rps, p50 and
 * p99 (ms), non-2xx answers and socket errors (timeouts included); `output`, what wrk printed.
 */
export async function runWrk({ url, headers, method = 'GET', bodies = [], seconds, threads, connections, luaFile }) {
  const env = {
    ...process.env,
    WRK_HEADERS: Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\n'),
    WRK_METHOD: method,
    WRK_BODIES: bodies.map((body) => JSON.stringify(body)).join('\n'),
  };
  const args = [`-t${threads}`, `-c${connections}`, `-d${seconds}s`, '--latency', '-s', luaFile, url];
  const child = spawnTracked('wrk', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (text += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (text += chunk));
  const code = await new Promise((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new BenchError(`wrk exited ${code}: ${text.trim()}`);
  const line = (re) => re.exec(text)?.[1];
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(text);
  return {
    rps: Number(line(/^Requests\/sec:\s+([\d.]+)/m)),
    p50: wrkMs(line(/^\s+50%\s+(\S+)/m)),
    p99: wrkMs(line(/^\s+99%\s+(\S+)/m)),
    non2xx: Number(line(/Non-2xx or 3xx responses: (\d+)/) ?? 0),
    errors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    output: text,
  };
}

/**
 * One autocannon run (in this process, so sharing its CPU; latency in whole milliseconds) of
 * `requests` against `url`: the same figures as runWrk, and the answers counted by status.
 */
export async function runAutocannon({ url, requests, seconds, connections }) {
  const result = await autocannon({ url, connections, duration: seconds, requests });
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors, // timeouts included
    // wrk gives no such breakdown
    statuses: Object.entries(result.statusCodeStats)
      .map(([code, { count }]) => `${code}x${count}`)
      .join(' '),
  };
}

/** Samples VmRSS of the server every 100 ms; `done()` stops and gives the peak in kB. */
export function sampleRss(pid) {
  let peak = 0;
  const sample = () => {
    peak = Math.max(peak, procStatusKb(pid, 'VmRSS'));
  };
  sample();
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    sample();
    return peak;
  };
}

export function procStatusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0; // the process is gone; its absence is reported elsewhere
  }
}

/** user + system CPU time of a process, in ticks. */
export function cpuTicks(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  } catch {
    return 0;
  }
}

/**
 * The whole machine's CPU time in ticks, busy and in all (every core; /proc/stat's first line):
 * whether a run had the CPUs to itself, or the servers, MariaDB and the load generator (or
 * someone else) saturated them.
 */
export function machineTicks() {
  try {
    const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number);
    const busy = user + nice + system + irq + softirq + steal;
    return { busy, total: busy + idle + iowait };
  } catch {
    return { busy: NaN, total: NaN };
  }
}
