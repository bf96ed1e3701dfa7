// A/B comparison of two running servers that implement the same API, e.g. the baseline of
// ../shared/perf/baseline (A) and platform-api kept running by `BENCH_SERVE=1 npm run bench` (B):
//
//   node bench/ab.mjs A_BASE_URL A_TOKENS_JSON B_BASE_URL B_TOKENS_JSON
//
// or, with one command, against the Nest-on-Express floor, both servers started here:
//
//   node bench/ab.mjs --floor
//
// --floor: A = ../shared/perf/baseline/nest-floor.mjs (BASELINE_DIR) run from a copy of that
// folder in a new temporary directory, its dependencies installed with `npm ci` once per content
// of its package-lock.json (cached in <temp dir>/pa-floor-deps-<hash>, linked from the copy),
// seeded by its seed.mjs into a database pa_floor_<random> of its own (the copy's schema.sql and
// seed.mjs name it instead of perf_baseline, so a perf_baseline in use by hand is left alone),
// started as the shared README starts it (`node nest-floor.mjs`, HOST 127.0.0.1, a free port);
// B = dist/main.js seeded and started as bench/run.mjs does it (a fresh pa_bench_<random>
// database, the CLI and the API, production settings, rate limits lifted; the bench's DNS server;
// a free port; its request log in OUT/server.log). The CPU of each server and of mariadbd (when
// MariaDB is local) is measured on its side (CPU_PIDS_A and CPU_PIDS_B add pids). Both servers,
// the DNS server, both databases and the copy are removed when it ends: on success, failure and
// Ctrl-C. Needs dist/ built (node scripts/build-if-stale.mjs), MariaDB (BENCH_DATABASE_URL
// [mysql://root@127.0.0.1:3306], allowed to create and drop databases) and npm's registry on the
// first run.
//
// Measures A, then B, ROUNDS times, so that both sides are measured under the same machine
// conditions (run-to-run drift on a shared 2-core VM is larger than many of the differences
// worth knowing). Each side's run, each workload in turn: one GET that must answer 200, a
// warm-up (thrown away), then the measured run, with wrk (2 threads, 32 connections, the
// headers only: wrk keeps its static, pre-built request). Then each side's medians and, per
// workload, B's median rps as a fraction of A's. This is what ../shared/perf/ab.sh (with its
// load.sh and summarize.sh) measures and prints, and it replaces it; beyond it: the checks of
// both sides before any load, failed requests counted in the warm-up too, and the CPU's medians
// in the summary.
//
//   W1     GET BASE_URL/webhook             Cookie: __Secure-auth.session_token=<session>
//   W2     GET BASE_URL/webhook/<name>      Cookie: __Secure-auth.session_token=<session>
//   W3     GET BASE_URL/card/provisioning   Authorization: Bearer <wallet>
//   HELLO  GET BASE_URL, no credentials (a hello-world server; its tokens file may be "-");
//          only when WORKLOADS names it
//
// BASE_URL is the API base, prefix included (http://127.0.0.1:3000/api). A tokens file is
// {"session": "…", "wallet": "…", "name": "<a webhook of the session's organization>"}: what
// bench/run.mjs writes to bench/results/tokens.json and the baseline's seed.mjs prints.
//
// Progress on stderr: per side, round and workload `W1 rps=… p50_ms=… p99_ms=…` and, with
// CPU_PIDS_A / CPU_PIDS_B, the CPU each of those processes, the load generator, the rest of the
// machine and the hypervisor ("steal") used during the measured run, in % of one core. On
// stdout, Markdown: each side's medians (rps, p50, p99 taken separately; CPU when measured) and
// B / A per workload. OUT keeps per side and round <side>-<round>.txt (the result lines),
// cpu-<side>-<round>.txt (the CPU and failure lines), raw-<side>-<round>/<W>.txt (wrk's output
// of each measured run) and summary.md (stdout).
//
// Without wrk on PATH (apt-get install wrk), autocannon runs every workload, in this process:
// it shares the CPUs with the servers and reports latency in whole milliseconds, so its numbers
// are not comparable with wrk's.
//
// Exit status: 0 when every request answered 2xx (the checks: 200); 1 on a failed request
// (non-2xx, socket error or timeout, in the warm-up or the measured run; a failed check):
// measuring stops after that side's run, as ab.sh does, and nothing is summarized; 2 on a usage
// or configuration error; 130 when interrupted. Before any load, each workload's check is made
// on both sides, so a wrong URL or tokens file fails at once rather than after A's run.
//
// Environment (defaults in brackets):
//   ROUNDS [3]  DURATION [10s] and WARMUP [3s] (s, m or h; a bare number is seconds)
//   CONNECTIONS [32]  THREADS [2] (wrk)  WORKLOADS ["W1 W2 W3"] (any of W1 W2 W3 HELLO)
//   CPU_PIDS_A, CPU_PIDS_B  space-separated pids whose CPU to measure on that side (the server
//                           and mariadbd: `"$(pgrep -f server.mjs) $(pidof mariadbd)"`)
//   OUT [a new directory perf-ab-<UTC time>-… in the system's temporary directory]
//   --floor only: BASELINE_DIR [../shared/perf/baseline]  BENCH_DATABASE_URL (above)
import { createHash, randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  API_PREFIX,
  atCleanup,
  BenchError,
  cleanUp,
  cpuTicks,
  databaseUrl,
  fixed,
  freePort,
  intFromEnv,
  log,
  onPath,
  parseServerUrl,
  requireDist,
  ROOT,
  runAutocannon,
  runWrk,
  shown,
  spawnTracked,
  startDns,
  startSeededService,
  withMariadb,
  WRK_LUA,
} from './harness.mjs';

const USAGE =
  'usage: node bench/ab.mjs A_BASE_URL A_TOKENS_JSON B_BASE_URL B_TOKENS_JSON, or node bench/ab.mjs --floor (see the comment at the top of bench/ab.mjs)';

const say = (line) => process.stderr.write(`ab: ${line}\n`);

/** A configuration or usage error: exit status 2, as load.sh's. */
class UsageError extends BenchError {}

const session = (tokens) => ({ Cookie: `__Secure-auth.session_token=${tokens.session}` });

const WORKLOADS = {
  W1: { path: () => '/webhook', headers: session },
  W2: { path: (tokens) => `/webhook/${encodeURIComponent(tokens.name)}`, headers: session },
  W3: { path: () => '/card/provisioning', headers: (tokens) => ({ Authorization: `Bearer ${tokens.wallet}` }) },
  HELLO: { path: () => '', headers: () => ({}), noTokens: true },
};

// ---- configuration ------------------------------------------------------------------------

/** A duration as wrk takes it ("10s", "1m", "10"), in whole seconds. */
function durationFromEnv(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const match = /^(\d+)(s|m|h)?$/.exec(raw);
  const seconds = match ? Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] ?? 's'] : 0;
  if (!(seconds >= 1)) throw new UsageError(`${name}: expected a duration such as 10s, 1m or 10, got ${JSON.stringify(raw)}`);
  return seconds;
}

function pidsFromEnv(name) {
  const pids = (process.env[name] ?? '').split(/\s+/).filter((p) => p !== '');
  const bad = pids.filter((p) => !/^\d+$/.test(p));
  if (bad.length > 0) throw new UsageError(`${name}: expected space-separated pids, got ${bad.map((p) => JSON.stringify(p)).join(', ')}`);
  return pids.map(Number);
}

function readTokens(name, file, needed) {
  if (!needed) return {};
  if (file === '-') throw new UsageError(`${name}: "-" is only for HELLO alone (no workload with credentials)`);
  let tokens;
  try {
    tokens = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${name}: cannot read ${file} as JSON: ${error.message}`);
  }
  const missing = missingTokens(tokens);
  if (missing) throw new UsageError(`${name}: ${file} has no string member "${missing}"`);
  return tokens;
}

/** The first member a tokens file must have and `tokens` lacks. */
const missingTokens = (tokens) => ['session', 'wallet', 'name'].find((key) => typeof tokens?.[key] !== 'string');

function parseBaseUrl(name, value) {
  let url;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new UsageError(`${name}: expected a base URL such as http://127.0.0.1:3000/api, got ${JSON.stringify(value)}`);
  }
  return value.replace(/\/+$/, '');
}

function loadConfig(args) {
  const floor = args.length === 1 && args[0] === '--floor';
  if (!floor && args.length !== 4) throw new UsageError(USAGE);
  const workloads = (process.env.WORKLOADS ?? 'W1 W2 W3').split(/\s+/).filter((w) => w !== '');
  const unknown = workloads.filter((w) => !Object.hasOwn(WORKLOADS, w));
  if (unknown.length > 0) throw new UsageError(`WORKLOADS: unknown ${unknown.join(', ')} (W1, W2, W3, HELLO)`);
  if (workloads.length === 0) throw new UsageError('WORKLOADS: none given');
  if (floor && workloads.includes('HELLO'))
    throw new UsageError('WORKLOADS: HELLO is not served by the floor nor by the service (--floor)');
  const needTokens = workloads.some((w) => !WORKLOADS[w].noTokens);
  const side = (name, url, tokens) => ({
    name,
    base: parseBaseUrl(`${name}_BASE_URL`, url),
    tokens: readTokens(`${name}_TOKENS_JSON`, tokens, needTokens),
    pids: pidsFromEnv(`CPU_PIDS_${name}`),
  });
  const config = {
    // --floor: the sides are known once both servers run (startFloorAndService)
    sides: floor ? undefined : [side('A', args[0], args[1]), side('B', args[2], args[3])],
    floor: floor ? floorConfig() : undefined,
    rounds: intFromEnv('ROUNDS', 3, 1),
    duration: durationFromEnv('DURATION', 10),
    warmup: durationFromEnv('WARMUP', 3),
    connections: intFromEnv('CONNECTIONS', 32, 1),
    threads: intFromEnv('THREADS', 2, 1),
    workloads,
    tool: onPath('wrk') ? 'wrk' : 'autocannon',
    out: process.env.OUT || undefined,
  };
  if (config.tool === 'wrk' && config.connections < config.threads)
    throw new UsageError('CONNECTIONS: at least THREADS (wrk gives each thread its connections)');
  return config;
}

function floorConfig() {
  const baseline = resolve(process.env.BASELINE_DIR || join(ROOT, '..', 'shared', 'perf', 'baseline'));
  for (const file of FLOOR_FILES) {
    if (!existsSync(join(baseline, file)))
      throw new UsageError(`BASELINE_DIR: ${baseline} has no ${file} (the baseline folder of ../shared/perf, described in its README)`);
  }
  let mariadb;
  try {
    mariadb = parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306');
  } catch (error) {
    throw new UsageError(error.message);
  }
  return {
    baseline,
    mariadb,
    pidsA: pidsFromEnv('CPU_PIDS_A'),
    pidsB: pidsFromEnv('CPU_PIDS_B'),
  };
}

// ---- CPU, as load.sh reads it from /proc --------------------------------------------------

/** The machine's ticks: busy (user, nice, system, irq, softirq, steal), all (busy, idle, iowait), steal. */
function machineTicks() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
  return { busy, total: busy + f[3] + f[4], steal: f[7] };
}

/**
 * The load generator's ticks (user + system): wrk's, as this process's reaped children (cutime +
 * cstime, complete once the run's wrk has exited); autocannon's, as this process's own.
 */
function generatorTicks(tool) {
  const f = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return tool === 'wrk' ? Number(f[13]) + Number(f[14]) : Number(f[11]) + Number(f[12]);
}

function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

/** Starts a CPU reading of `pids`; the function it returns ends it: { label: % of one core }. */
function cpuReading(pids, tool) {
  const before = pids.map(cpuTicks);
  const machine0 = machineTicks();
  const generator0 = generatorTicks(tool);
  return () => {
    const machine1 = machineTicks();
    const generator = generatorTicks(tool) - generator0;
    // shares of one core over the measured window, on the machine's own clock
    const pct = (ticks) => Math.round((ticks / ((machine1.total - machine0.total) / availableParallelism())) * 100);
    const used = pids.map((pid, i) => cpuTicks(pid) - before[i]);
    const busy = machine1.busy - machine0.busy;
    const steal = machine1.steal - machine0.steal;
    const shares = {};
    pids.forEach((pid, i) => (shares[`${comm(pid)}[${pid}]`] = pct(used[i])));
    shares[tool] = pct(generator);
    shares.other = pct(busy - used.reduce((sum, t) => sum + t, 0) - generator - steal);
    shares.steal = pct(steal);
    shares.machine = pct(busy);
    return shares;
  };
}

const cpuLine = (id, shares) =>
  `# ${id} cpu (% of one core): ${Object.entries(shares)
    .map(([label, value]) => `${label}=${value}%`)
    .join(' ')} of ${availableParallelism() * 100}%`;

// ---- one side's run: load.sh ----------------------------------------------------------------

/** The check before any load, as load.sh's curl: one GET that must answer 200 (redirects not followed). */
function check(url, headers) {
  return new Promise((resolve) => {
    const req = (url.startsWith('https:') ? https : http).get(url, { headers, agent: false, timeout: 30_000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode === 200 ? undefined : `answered ${res.statusCode}, expected 200`));
    });
    req.once('timeout', () => req.destroy(new Error('no answer within 30 s')));
    req.once('error', (error) => resolve(`failed: ${error.code ?? error.message}`));
  });
}

function target(side, id) {
  const workload = WORKLOADS[id];
  return { url: `${side.base}${workload.path(side.tokens)}`, headers: workload.headers(side.tokens) };
}

/** Every workload of one side's run: { results: { W1: { rps, p50, p99, cpu }, … }, failures: how many workloads failed }. */
async function runSide(side, round, config, luaFile) {
  const tag = `${side.name}-${round}`;
  const rawDir = join(config.out, `raw-${tag}`);
  if (config.tool === 'wrk') mkdirSync(rawDir, { recursive: true });
  const lines = [];
  const notes = [];
  const note = (line) => {
    process.stderr.write(`${line}\n`);
    notes.push(line);
  };
  const results = {};
  let failures = 0;
  for (const id of config.workloads) {
    const { url, headers } = target(side, id);
    const problem = await check(url, headers);
    if (problem) {
      note(`ab: ${side.name} ${id}: GET ${url} ${problem}; skipped`);
      failures++;
      continue;
    }
    const run = (seconds) => {
      if (config.tool === 'wrk')
        return runWrk({ url, headers, seconds, threads: config.threads, connections: config.connections, luaFile });
      const { origin, pathname, search } = new URL(url);
      return runAutocannon({
        url: origin,
        requests: [{ method: 'GET', path: `${pathname}${search}`, headers }],
        seconds,
        connections: config.connections,
      });
    };
    const warm = await run(config.warmup);
    const endCpu = side.pids.length > 0 ? cpuReading(side.pids, config.tool) : undefined;
    const measured = await run(config.duration);
    const cpu = endCpu?.();
    if (cpu) note(cpuLine(id, cpu));
    if (measured.output !== undefined) writeFileSync(join(rawDir, `${id}.txt`), measured.output);

    const figures = { rps: fixed(measured.rps, 2), p50: fixed(measured.p50, 3), p99: fixed(measured.p99, 3) };
    const line = `${id} rps=${figures.rps} p50_ms=${figures.p50} p99_ms=${figures.p99}`;
    process.stderr.write(`${line}\n`);
    lines.push(line);
    // the figures as the line gives them, which is what summarize.sh reads
    results[id] = { rps: Number(figures.rps), p50: Number(figures.p50), p99: Number(figures.p99), cpu };

    // Stricter than load.sh, which counts the measured run only: every request must succeed.
    const non2xx = warm.non2xx + measured.non2xx;
    const errors = warm.errors + measured.errors;
    if (non2xx + errors > 0) {
      note(
        `ab: ${side.name} ${id}: ${non2xx} non-2xx answers, ${errors} socket errors or timeouts (warm-up and measured run)` +
          (measured.statuses ? `; measured run: ${measured.statuses}` : ''),
      );
      failures++;
    }
  }
  writeFileSync(join(config.out, `${tag}.txt`), lines.map((l) => `${l}\n`).join(''));
  writeFileSync(join(config.out, `cpu-${tag}.txt`), notes.map((l) => `${l}\n`).join(''));
  return { results, failures };
}

// ---- summary: summarize.sh and ab.sh's ratio --------------------------------------------------

/**
 * printf's %.<digits>f, as summarize.sh's awk prints: to nearest on the exact binary value, ties
 * to even (toFixed breaks ties away from zero: 4842.5 is 4843 there, 4842 here).
 */
function printf(value, digits) {
  if (!Number.isFinite(value)) return '-';
  const away = value.toFixed(digits);
  const exact = value.toFixed(100); // exact: a double's expansion needs fewer digits at these magnitudes
  const dot = exact.indexOf('.');
  if (!/^50*$/.test(exact.slice(dot + 1 + digits))) return away;
  const truncated = exact.slice(0, digits > 0 ? dot + 1 + digits : dot);
  return Number(truncated.at(-1)) % 2 === 0 ? truncated : away;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Per workload, the median of each figure over the rounds, each taken separately. */
function medians(runs, workloads) {
  const table = {};
  for (const id of workloads) {
    const of = runs.map((results) => results[id]).filter((r) => r !== undefined);
    if (of.length === 0) continue;
    const cpu = {};
    for (const label of Object.keys(of[0].cpu ?? {})) cpu[label] = median(of.map((r) => r.cpu?.[label]).filter(Number.isFinite));
    table[id] = {
      runs: of.map((r) => r.rps),
      rps: median(of.map((r) => r.rps)),
      p50: median(of.map((r) => r.p50)),
      p99: median(of.map((r) => r.p99)),
      cpu: of[0].cpu ? cpu : undefined,
    };
  }
  return table;
}

function summary(config, runs) {
  const lines = [];
  const add = (line = '') => lines.push(line);
  const { tool, threads, connections, warmup, duration, rounds } = config;
  add(
    `## A/B: ${tool}${tool === 'wrk' ? `, ${threads} threads` : ''}, ${connections} connections, ${warmup} s warm-up + ${duration} s measured, ${rounds} round${rounds > 1 ? 's' : ''} (A then B in each)`,
  );
  if (tool === 'autocannon') {
    add();
    add(
      'wrk was not on PATH: measured with autocannon (in-process, whole-millisecond latency); not comparable with figures measured with wrk.',
    );
  }
  const sides = {};
  for (const side of config.sides) {
    sides[side.name] = medians(runs[side.name], config.workloads);
    add();
    add(`${side.name} = ${side.base}${side.label ? ` (${side.label})` : ''}`);
    add();
    add('| workload | runs | rps (median) | p50 ms (median) | p99 ms (median) | rps of each run |');
    add('|---|---:|---:|---:|---:|---|');
    for (const [id, m] of Object.entries(sides[side.name])) {
      add(
        `| ${id} | ${m.runs.length} | ${printf(m.rps, 0)} | ${printf(m.p50, 2)} | ${printf(m.p99, 2)} | ${m.runs.map((v) => printf(v, 0)).join(', ')} |`,
      );
    }
    const withCpu = Object.entries(sides[side.name]).filter(([, m]) => m.cpu);
    if (withCpu.length > 0) {
      const labels = Object.keys(withCpu[0][1].cpu);
      add();
      add(`CPU during the measured runs, % of one core (medians; ${availableParallelism() * 100} % = the machine):`);
      add();
      add(`| workload | ${labels.join(' | ')} |`);
      add(`|---|${labels.map(() => '---:').join('|')}|`);
      for (const [id, m] of withCpu) add(`| ${id} | ${labels.map((l) => fixed(m.cpu[l], 0)).join(' | ')} |`);
    }
  }
  add();
  add('| workload | B rps / A rps (medians) |');
  add('|---|---:|');
  for (const id of config.workloads) {
    const a = sides.A[id];
    const b = sides.B[id];
    // from the medians as the tables show them (whole rps), as ab.sh computes it
    const [ra, rb] = [a, b].map((m) => Number(printf(m?.rps, 0)));
    if (ra > 0 && rb >= 0) add(`| ${id} | ${printf(rb / ra, 2)} |`);
  }
  return lines.join('\n');
}

// ---- --floor: the floor (A) and the service (B), started here --------------------------------

/** What the floor needs of the baseline folder. */
const FLOOR_FILES = ['package.json', 'package-lock.json', 'schema.sql', 'seed.mjs', 'nest-floor.mjs'];
/** Written last into a dependency cache: its install completed. */
const INSTALLED = '.installed';

/** Runs a child (stopped at cleanup) to its end; resolves to its stdout, or throws with the tail of its output. */
async function runChild(what, command, args, options) {
  const child = spawnTracked(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let tail = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    stdout += chunk;
    tail = (tail + chunk).slice(-4000);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk) => (tail = (tail + chunk).slice(-4000)));
  const ended = await new Promise((resolve) => {
    child.once('error', (error) => resolve(error.code ?? error.message));
    child.once('close', (code, signal) => resolve(code === 0 ? undefined : (signal ?? code)));
  });
  if (ended !== undefined) throw new BenchError(`${what} failed (${ended}): ${tail.trim()}`);
  return stdout;
}

/**
 * The floor's node_modules, installed by `npm ci` from the baseline's package.json and
 * package-lock.json once per content of the lock: in <temp dir>/pa-floor-deps-<its hash>, made in
 * a staging directory and renamed into place when complete, so an interrupted install is never
 * taken for one, and two runs at once each end with a complete cache.
 */
async function floorDependencies(baseline) {
  const hash = createHash('sha256')
    .update(readFileSync(join(baseline, 'package-lock.json')))
    .digest('hex')
    .slice(0, 16);
  const cache = join(tmpdir(), `pa-floor-deps-${hash}`);
  const complete = () => existsSync(join(cache, INSTALLED)) && existsSync(join(cache, 'node_modules', '@nestjs', 'core', 'package.json'));
  if (complete()) {
    log(`the floor's dependencies: ${cache} (installed before, same package-lock.json)`);
    return cache;
  }
  const staging = mkdtempSync(`${cache}.partial-`);
  atCleanup(() => rmSync(staging, { recursive: true, force: true }));
  for (const file of ['package.json', 'package-lock.json']) {
    cpSync(join(baseline, file), join(staging, file));
    chmodSync(join(staging, file), 0o644);
  }
  log(`installing the floor's dependencies into ${cache} (npm ci; once per package-lock.json)`);
  await runChild("npm ci of the floor's dependencies", 'npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: staging,
    env: process.env, // npm's own configuration: registry, proxy, cache
  });
  writeFileSync(join(staging, INSTALLED), `${new Date().toISOString()}\n`);
  try {
    renameSync(staging, cache);
  } catch (error) {
    if (complete()) return cache; // another run installed it meanwhile
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    rmSync(cache, { recursive: true, force: true }); // an incomplete one (a temp cleaner's leftovers)
    renameSync(staging, cache);
  }
  return cache;
}

/**
 * A writable copy of the baseline folder in a new temporary directory (removed at cleanup), its
 * node_modules a link to `dependencies`, and its schema.sql and seed.mjs naming `database`
 * instead of perf_baseline.
 */
function copyBaseline(baseline, dependencies, database) {
  const dir = mkdtempSync(join(tmpdir(), 'pa-floor-'));
  atCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const skipped = new Set(['node_modules', 'secret.key']); // the key is given as SECRET_KEY
  cpSync(baseline, dir, { recursive: true, filter: (source) => source === baseline || !skipped.has(source.slice(baseline.length + 1)) });
  // the shared folder is read-only, and so is what cpSync copied of it
  for (const path of [dir, ...readdirSync(dir, { recursive: true }).map((entry) => join(dir, entry))])
    chmodSync(path, statSync(path).mode | 0o200);
  symlinkSync(join(dependencies, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const file of ['schema.sql', 'seed.mjs']) {
    const text = readFileSync(join(dir, file), 'utf8');
    if (!text.includes('perf_baseline'))
      throw new BenchError(`${join(baseline, file)} no longer names the database perf_baseline: bench/ab.mjs --floor needs updating`);
    writeFileSync(join(dir, file), text.replaceAll('perf_baseline', database));
  }
  return dir;
}

/** Starts nest-floor.mjs in `dir`; resolves to its process once it says it listens. Its output goes to `logFile`. */
function startFloor(dir, env, logFile) {
  const child = spawnTracked(process.execPath, ['nest-floor.mjs'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logStream = createWriteStream(logFile);
  let tail = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchError(`the floor did not listen within 60 s: ${tail.trim()}`)), 60_000);
    const read = (chunk) => {
      logStream.write(chunk);
      tail = (tail + chunk).slice(-4000);
      if (/listening on/.test(tail)) {
        clearTimeout(timer);
        resolve(child);
      }
    };
    child.stdout.setEncoding('utf8').on('data', read);
    child.stderr.setEncoding('utf8').on('data', read);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new BenchError(`the floor exited (${code ?? signal}) before listening: ${tail.trim()}`)); // no-op once listening
    });
  });
}

/** mariadbd's (or mysqld's) pids when MariaDB runs on this machine, as `pidof mariadbd`. */
function mariadbPids(server) {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(server.hostname)) return [];
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && ['mariadbd', 'mysqld'].includes(comm(entry)))
    .map(Number);
}

/** --floor: starts A, the floor, and B, the service, each seeded with the baseline's data set; sets config.sides. */
async function startFloorAndService(config) {
  const { baseline, mariadb, pidsA, pidsB } = config.floor;
  requireDist();
  await withMariadb(mariadb, (c) => c.query('SELECT 1'));

  const dependencies = await floorDependencies(baseline);
  const database = `pa_floor_${randomBytes(6).toString('hex')}`;
  const dir = copyBaseline(baseline, dependencies, database);
  const env = { PATH: process.env.PATH, DATABASE_URL: databaseUrl(mariadb, database), SECRET_KEY: randomBytes(32).toString('base64') };
  // registered before seed.mjs creates it, so that it goes whenever the run ends
  atCleanup(() => withMariadb(mariadb, (c) => c.query(`DROP DATABASE IF EXISTS ${database}`)));
  log(`seeding the floor's database ${database} on ${shown(mariadb)} (its seed.mjs, in ${dir})`);
  const printed = await runChild("the floor's seed.mjs", process.execPath, ['seed.mjs'], { cwd: dir, env });
  let floorTokens;
  try {
    floorTokens = JSON.parse(printed);
  } catch {
    floorTokens = undefined;
  }
  const missing = missingTokens(floorTokens);
  if (missing) throw new BenchError(`the floor's seed.mjs printed no tokens JSON with a string member "${missing}"`);
  const floorPort = await freePort();
  const floor = await startFloor(dir, { ...env, PORT: String(floorPort), HOST: '127.0.0.1', API_PREFIX }, join(config.out, 'floor.log'));
  log(`the floor listens on 127.0.0.1:${floorPort} (pid ${floor.pid})`);

  const service = await startSeededService({
    mariadb,
    port: await freePort(),
    dns: await startDns(),
    connections: config.connections,
    serverLog: join(config.out, 'server.log'),
  });

  const mariadbd = mariadbPids(mariadb);
  if (mariadbd.length === 0) say(`no mariadbd process on this machine for ${shown(mariadb)}: its CPU is not measured`);
  const pids = (server, extra) => [...new Set([server, ...mariadbd, ...extra])];
  config.sides = [
    {
      name: 'A',
      base: `http://127.0.0.1:${floorPort}${API_PREFIX}`,
      tokens: floorTokens,
      pids: pids(floor.pid, pidsA),
      label: 'the floor, nest-floor.mjs',
    },
    {
      name: 'B',
      base: service.api,
      tokens: service.tokens,
      pids: pids(service.server.child.pid, pidsB),
      label: 'platform-api, dist/main.js',
    },
  ];
}

// ---- main -----------------------------------------------------------------------------------

async function main() {
  const config = loadConfig(process.argv.slice(2));
  if (config.out) mkdirSync(config.out, { recursive: true });
  else config.out = mkdtempSync(join(tmpdir(), `perf-ab-${new Date().toISOString().replace(/[-:]|\.\d+/g, '')}-`));
  const luaFile = join(config.out, 'headers.lua');
  if (config.tool === 'wrk') writeFileSync(luaFile, WRK_LUA);
  else say("wrk not on PATH (apt-get install wrk): autocannon instead, whose numbers are not comparable with wrk's");
  say(
    `${config.tool}, ${config.connections} connections, ${config.warmup} s warm-up + ${config.duration} s per workload, ` +
      `${config.rounds} round(s) of A then B; raw outputs in ${config.out}`,
  );
  if (config.floor) await startFloorAndService(config);

  for (const side of config.sides) {
    for (const id of config.workloads) {
      const { url, headers } = target(side, id);
      const problem = await check(url, headers);
      if (problem) throw new BenchError(`${side.name} ${id}: GET ${url} ${problem}: nothing measured`);
    }
  }

  const runs = { A: [], B: [] };
  for (let round = 1; round <= config.rounds; round++) {
    for (const side of config.sides) {
      say(`--- round ${round}, ${side.name} (${side.base})`);
      const { results, failures } = await runSide(side, round, config, luaFile);
      runs[side.name].push(results);
      if (failures > 0) {
        throw new BenchError(
          `FAILED: ${side.name} had failed requests in round ${round} (above); stopped, nothing summarized. Raw outputs: ${config.out}`,
        );
      }
    }
  }
  const text = summary(config, runs);
  writeFileSync(join(config.out, 'summary.md'), `${text}\n`);
  process.stdout.write(`${text}\n`);
  // --floor: B's request log (about 100 MB at the defaults) only tells why requests failed, and none did
  if (config.floor) rmSync(join(config.out, 'server.log'), { force: true });
  say(`summary and raw outputs in ${config.out}`);
}

async function run() {
  const interrupted = new Promise((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.once(signal, () => resolve(signal));
  });
  let status = 0;
  try {
    const signal = await Promise.race([main().then(() => undefined), interrupted]);
    if (signal !== undefined) {
      say(`${signal}: stopping and cleaning up`);
      status = 130;
    }
  } catch (error) {
    say(error instanceof BenchError ? error.message : (error.stack ?? String(error)));
    status = error instanceof UsageError ? 2 : 1;
  } finally {
    await cleanUp(); // a wrk still running
  }
  process.exit(status);
}

await run();
