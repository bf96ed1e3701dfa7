// The benchmark harness of platform-api (`npm run bench`; see bench/README.md).
//
// Seeds a fresh MariaDB database through the CLI and the API with the data set of
// ../shared/perf/baseline/seed.mjs, starts the built server as in production (one process,
// NODE_ENV=production, LOG_LEVEL=info), loads it with wrk (autocannon when wrk is absent, and
// always for W5) and prints, per workload, rps, p50, p99, non-2xx answers and the server's
// peak RSS; then the cold start (spawn to the first 200 from /health) on SQLite and MariaDB.
// It writes bench/results/tokens.json, the tokens file that bench/ab.mjs reads for side B.
//
//   W1  GET   /api/webhook                    session cookie (owner)
//   W2  GET   /api/webhook/hook-01            session cookie
//   W3  GET   /api/card/provisioning          wallet_extension bearer token
//   W4  PATCH /api/webhook/hook-01            url alternating between two hosts (DNS on loopback)
//   W5  POST  /api/webhook/<new> + DELETE it  one pair per iteration and connection
//
// Exit status: 0 when every request of every workload answered 2xx, 1 otherwise (or on any
// failure of the harness itself), 130 when interrupted.
//
// Environment (defaults in brackets):
//   BENCH_DATABASE_URL  MariaDB server, no database [mysql://root@127.0.0.1:3306]
//   BENCH_KEEP=1        keep the workload database (pa_bench_<random>) instead of dropping it
//   BENCH_SERVE=1       keep the server running at the end, until Ctrl-C (for bench/ab.mjs)
//   BENCH_PORT [3000]   BENCH_DURATION [10] and BENCH_WARMUP [3] (seconds per workload)
//   BENCH_CONNECTIONS [32]  BENCH_THREADS [2] (wrk)  BENCH_TOOL [wrk when on PATH, else autocannon]
//   BENCH_WORKLOADS ["W1 W2 W3 W4 W5"]  BENCH_COLD_RUNS [3] (0: no cold starts)
//   BENCH_SERVER_LOG    where the server's stdout (one JSON line per request) goes
//                       [bench/results/server.log]
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  API_PREFIX,
  atCleanup,
  BenchError,
  cpuTicks,
  createDatabase,
  expectStatus,
  fixed,
  HOOK_NAME,
  hookName,
  HOOKS,
  intFromEnv,
  log,
  mb,
  onPath,
  out,
  parseServerUrl,
  procStatusKb,
  request,
  requireDist,
  requirePortFree,
  RESULTS,
  ROOT,
  runAutocannon,
  runBench,
  runWrk,
  sampleRss,
  secondsFromEnv,
  serviceEnv,
  shown,
  startDns,
  startSeededService,
  startServer,
  stop,
  TICKS_PER_SECOND,
  waitForHealth,
  webhookBody,
  withMariadb,
  WRK_LUA,
} from './harness.mjs';

const TOKENS_FILE = join(RESULTS, 'tokens.json');

function loadConfig() {
  const tool = process.env.BENCH_TOOL || (onPath('wrk') ? 'wrk' : 'autocannon');
  if (tool !== 'wrk' && tool !== 'autocannon') throw new BenchError(`BENCH_TOOL: wrk or autocannon, got ${JSON.stringify(tool)}`);
  if (tool === 'wrk' && !onPath('wrk')) throw new BenchError('BENCH_TOOL=wrk but wrk is not on PATH (apt-get install wrk)');
  const workloads = (process.env.BENCH_WORKLOADS ?? 'W1 W2 W3 W4 W5').split(/[\s,]+/).filter((w) => w !== '');
  const unknown = workloads.filter((w) => !(w in WORKLOADS));
  if (unknown.length > 0) throw new BenchError(`BENCH_WORKLOADS: unknown ${unknown.join(', ')} (W1 to W5)`);
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    keep: process.env.BENCH_KEEP === '1',
    serve: process.env.BENCH_SERVE === '1',
    port: intFromEnv('BENCH_PORT', 3000, 1),
    duration: secondsFromEnv('BENCH_DURATION', 10),
    warmup: secondsFromEnv('BENCH_WARMUP', 3),
    connections: intFromEnv('BENCH_CONNECTIONS', 32, 1),
    threads: intFromEnv('BENCH_THREADS', 2, 1),
    tool,
    workloads,
    coldRuns: intFromEnv('BENCH_COLD_RUNS', 3, 0),
    serverLog: process.env.BENCH_SERVER_LOG || join(RESULTS, 'server.log'),
  };
}

// ---- workloads ----------------------------------------------------------------------------

const W4_BODIES = [
  { url: `https://hooks.acme-example.com/platform/${HOOK_NAME}` },
  { url: `https://alt.acme-example.com/platform/${HOOK_NAME}` },
];

/** W5: a new name per create; the counter spans warm-up and measured run, so names never repeat. */
let w5Sequence = 0;

const WORKLOADS = {
  W1: { title: `GET ${API_PREFIX}/webhook`, method: 'GET', path: '/webhook', auth: 'session' },
  W2: { title: `GET ${API_PREFIX}/webhook/${HOOK_NAME}`, method: 'GET', path: `/webhook/${HOOK_NAME}`, auth: 'session' },
  W3: { title: `GET ${API_PREFIX}/card/provisioning`, method: 'GET', path: '/card/provisioning', auth: 'wallet' },
  W4: {
    title: `PATCH ${API_PREFIX}/webhook/${HOOK_NAME} (url)`,
    method: 'PATCH',
    path: `/webhook/${HOOK_NAME}`,
    auth: 'session',
    bodies: W4_BODIES,
    writes: true,
  },
  // wrk has no per-connection state, so it cannot send a DELETE after its own POST: always autocannon.
  W5: { title: `POST + DELETE ${API_PREFIX}/webhook/{new}`, pairs: true, auth: 'session', writes: true },
};

/**
 * After a write workload, back to the seeded data set, so that the next workload (and bench/ab.mjs
 * against BENCH_SERVE's server) sees exactly the baseline's 10 webhooks: hook-01's seed URL
 * again (W4), no W5 leftover (the load generator stops with a create in flight on each
 * connection, and the server finishes those after the client has gone). Repeats until two
 * checks half a second apart find nothing to fix, since such requests may still land.
 */
async function restoreSeed(api, headers) {
  const seeded = new Set(Array.from({ length: HOOKS }, (_, i) => hookName(i + 1)));
  for (let clean = 0, tries = 1; clean < 2; tries++) {
    if (tries > 60) throw new BenchError('the webhooks did not settle back to the seeded ones within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const webhooks = JSON.parse(await expectStatus(200, 'GET', `${api}/webhook`, { headers }));
    const extra = Object.keys(webhooks).filter((name) => !seeded.has(name));
    const moved = webhooks[HOOK_NAME].url !== W4_BODIES[0].url;
    for (const name of extra) {
      // 404: the DELETE of its own pair got there first
      const { status } = await request('DELETE', `${api}/webhook/${name}`, { headers });
      if (status !== 200 && status !== 404) throw new BenchError(`DELETE ${api}/webhook/${name} answered ${status}`);
    }
    if (moved) await expectStatus(200, 'PATCH', `${api}/webhook/${HOOK_NAME}`, { headers, body: W4_BODIES[0] });
    clean = extra.length === 0 && !moved ? clean + 1 : 0;
  }
}

function authHeaders(workload, tokens) {
  return workload.auth === 'wallet'
    ? { Authorization: `Bearer ${tokens.wallet}` }
    : { Cookie: `__Secure-auth.session_token=${tokens.session}` };
}

/** One request (W5: one pair) that must succeed before any load, as load.sh checks with curl. */
async function checkOnce(workload, api, headers) {
  if (workload.pairs) {
    await expectStatus(201, 'POST', `${api}/webhook/w5-check`, { headers, body: webhookBody('w5-check', 1) });
    await expectStatus(200, 'DELETE', `${api}/webhook/w5-check`, { headers });
  } else {
    await expectStatus(200, workload.method, `${api}${workload.path}`, { headers, body: workload.bodies?.[0] });
  }
}

/** autocannon's requests of a workload (W5: a POST then the DELETE of what it created, on each connection). */
function autocannonRequests(workload, headers) {
  return workload.pairs
    ? [
        {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          // context: autocannon's per-connection state, fresh for each POST + DELETE sequence
          setupRequest: (req, context) => {
            context.name = `w5-${++w5Sequence}`;
            return { ...req, path: `${API_PREFIX}/webhook/${context.name}`, body: JSON.stringify(webhookBody(context.name, w5Sequence)) };
          },
        },
        { method: 'DELETE', headers, setupRequest: (req, context) => ({ ...req, path: `${API_PREFIX}/webhook/${context.name}` }) },
      ]
    : workload.bodies
      ? workload.bodies.map((body) => ({
          method: workload.method,
          path: `${API_PREFIX}${workload.path}`,
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }))
      : [{ method: workload.method, path: `${API_PREFIX}${workload.path}`, headers }];
}

/** Check, warm-up (thrown away), then the measured run, with the server's RSS and CPU. */
async function runWorkload(id, { server, tokens, config, luaFile }) {
  const workload = WORKLOADS[id];
  const origin = `http://127.0.0.1:${config.port}`;
  const headers = authHeaders(workload, tokens);
  const tool = config.tool === 'wrk' && !workload.pairs ? 'wrk' : 'autocannon';
  await checkOnce(workload, `${origin}${API_PREFIX}`, headers);

  const { threads, connections } = config;
  const run = (seconds) =>
    tool === 'wrk'
      ? runWrk({
          url: `${origin}${API_PREFIX}${workload.path}`,
          headers,
          method: workload.method,
          bodies: workload.bodies,
          seconds,
          threads,
          connections,
          luaFile,
        })
      : runAutocannon({ url: origin, requests: autocannonRequests(workload, headers), seconds, connections });

  log(`${id} ${workload.title}: ${tool}, ${config.connections} connections, ${config.warmup} s warm-up + ${config.duration} s`);
  const peakRss = sampleRss(server.child.pid);
  const warm = await run(config.warmup);
  const ticks0 = cpuTicks(server.child.pid);
  const t0 = performance.now();
  const measured = await run(config.duration);
  const cpuSeconds = (cpuTicks(server.child.pid) - ticks0) / TICKS_PER_SECOND;
  const cpu = (cpuSeconds / ((performance.now() - t0) / 1000)) * 100;
  const peakRssKb = peakRss();
  if (workload.writes) await restoreSeed(`${origin}${API_PREFIX}`, headers);
  // Failed answers are counted over the warm-up too: every request must succeed.
  const non2xx = warm.non2xx + measured.non2xx;
  const errors = warm.errors + measured.errors;
  const result = { id, tool, ...measured, non2xx, errors, cpu, peakRssKb, failures: non2xx + errors };
  log(
    `${id}: ${fixed(result.rps, 0)} rps, p50 ${fixed(result.p50, 2)} ms, p99 ${fixed(result.p99, 2)} ms` +
      (result.failures > 0 ? `, ${non2xx} non-2xx, ${errors} errors` : '') +
      (result.failures > 0 && measured.statuses ? ` (measured run: ${measured.statuses})` : ''),
  );
  return result;
}

// ---- cold start ---------------------------------------------------------------------------

/** Milliseconds from spawn to the first 200 from /health; the server is stopped afterwards. */
async function coldStart(env, cwd) {
  const server = startServer(env, { cwd });
  const healthyAt = await waitForHealth(server);
  await stop(server.child);
  return healthyAt - server.startedAt;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** SQLite and MariaDB, each: a fresh store (migrations at start) then a second start on it. */
async function coldStarts(config, secretKey) {
  const runs = { 'SQLite, fresh file': [], 'SQLite, migrated': [], 'MariaDB, fresh database': [], 'MariaDB, migrated': [] };
  const extra = { PORT: String(config.port), HOST: '127.0.0.1' };
  for (let i = 1; i <= config.coldRuns; i++) {
    log(`cold start ${i}/${config.coldRuns}`);
    // a fresh working directory too: nothing of a previous start (data/) is found there
    const dir = mkdtempSync(join(tmpdir(), 'pa-bench-'));
    try {
      const env = serviceEnv(secretKey, `sqlite:${join(dir, 'bench.sqlite')}`, extra);
      runs['SQLite, fresh file'].push(await coldStart(env, dir));
      runs['SQLite, migrated'].push(await coldStart(env, dir));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const database = await createDatabase(config.mariadb);
    try {
      const env = serviceEnv(secretKey, database.url, extra);
      runs['MariaDB, fresh database'].push(await coldStart(env, ROOT));
      runs['MariaDB, migrated'].push(await coldStart(env, ROOT));
    } finally {
      await database.drop();
    }
  }
  return runs;
}

// ---- report -------------------------------------------------------------------------------

function printWorkloads(results, config, server) {
  out(`## Workloads (${config.connections} connections, ${config.warmup} s warm-up, ${config.duration} s measured)`);
  out();
  out('| workload | tool | rps | p50 ms | p99 ms | non-2xx | errors | server CPU % | peak RSS MB |');
  out('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    out(
      `| ${r.id} ${WORKLOADS[r.id].title} | ${r.tool} | ${fixed(r.rps, 0)} | ${fixed(r.p50, 2)} | ${fixed(r.p99, 2)} | ${r.non2xx} | ${r.errors} | ${fixed(r.cpu, 0)} | ${fixed(mb(r.peakRssKb), 1)} |`,
    );
  }
  out();
  out(`W5 rps counts requests (a pair is 2). autocannon reports latency in whole milliseconds.`);
  out(
    `Server RSS: ${fixed(mb(server.idleRssKb), 1)} MB idle after seeding; peak over its life (VmHWM) ${fixed(mb(procStatusKb(server.child.pid, 'VmHWM')), 1)} MB.`,
  );
  out();
}

function printColdStarts(runs) {
  out('## Cold start: spawn of `node dist/main.js` to the first 200 from /health');
  out();
  out('| store | median ms | runs ms |');
  out('|---|---:|---|');
  for (const [store, values] of Object.entries(runs)) {
    out(`| ${store} | ${fixed(median(values), 0)} | ${values.map((v) => fixed(v, 0)).join(', ')} |`);
  }
  out();
}

// ---- main ---------------------------------------------------------------------------------

async function main(state) {
  // No stale tokens file: one written by this run means that it has measured and is serving.
  rmSync(TOKENS_FILE, { force: true });
  const config = loadConfig();
  requireDist();
  await requirePortFree(config.port);
  await withMariadb(config.mariadb, (c) => c.query('SELECT 1'));
  mkdirSync(RESULTS, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'pa-bench-'));
  atCleanup(() => rmSync(scratch, { recursive: true, force: true }));
  const luaFile = join(scratch, 'wrk.lua');
  writeFileSync(luaFile, WRK_LUA);
  const secretKey = randomBytes(32).toString('base64');

  const dns = await startDns();
  const coldRuns = config.coldRuns > 0 ? await coldStarts(config, secretKey) : undefined;

  const { database, server, api, tokens } = await startSeededService({
    mariadb: config.mariadb,
    port: config.port,
    dns,
    connections: config.connections,
    serverLog: config.serverLog,
    keep: config.keep,
    secretKey,
  });
  server.idleRssKb = procStatusKb(server.child.pid, 'VmRSS');

  const results = [];
  for (const id of config.workloads) results.push(await runWorkload(id, { server, tokens, config, luaFile }));

  writeFileSync(TOKENS_FILE, `${JSON.stringify(tokens)}\n`, { mode: 0o600 });
  if (results.length > 0) printWorkloads(results, config, server);
  if (coldRuns) printColdStarts(coldRuns);
  out(`Tokens file: ${relative(ROOT, TOKENS_FILE)} (${TOKENS_FILE})`);
  if (config.keep) out(`Database kept: ${database.name} on ${shown(config.mariadb)}`);

  const failed = results.filter((r) => r.failures > 0);
  if (failed.length > 0) {
    process.exitCode = 1;
    log(`FAILED: non-2xx answers or socket errors in ${failed.map((r) => r.id).join(', ')} (see ${relative(ROOT, config.serverLog)})`);
  }
  if (config.serve) {
    state.serving = true;
    out();
    out(
      `Serving ${api} (pid ${server.child.pid}, with mariadbd: CPU_PIDS_B="${server.child.pid} $(pidof mariadbd)"); Ctrl-C stops it and cleans up.`,
    );
    out(`  node bench/ab.mjs <baseline-url> <baseline-tokens> ${api} ${relative(ROOT, TOKENS_FILE)}`);
    await new Promise(() => {}); // until a signal ends the race in run()
  }
}

const state = { serving: false };
await runBench(() => main(state), { servingUntilStopped: () => state.serving });
