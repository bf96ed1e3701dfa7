// A/B comparison of two running servers that implement the same API, e.g. the baseline of
// ../shared/perf/baseline (A) and platform-api kept running by `BENCH_SERVE=1 npm run bench` (B):
//
//   node bench/ab.mjs A_BASE_URL A_TOKENS_JSON B_BASE_URL B_TOKENS_JSON
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
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { BenchError, cleanUp, cpuTicks, fixed, intFromEnv, onPath, runAutocannon, runWrk, WRK_LUA } from './harness.mjs';

const USAGE = 'usage: node bench/ab.mjs A_BASE_URL A_TOKENS_JSON B_BASE_URL B_TOKENS_JSON (see the comment at the top of bench/ab.mjs)';

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
  for (const key of ['session', 'wallet', 'name']) {
    if (typeof tokens?.[key] !== 'string') throw new UsageError(`${name}: ${file} has no string member "${key}"`);
  }
  return tokens;
}

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
  if (args.length !== 4) throw new UsageError(USAGE);
  const workloads = (process.env.WORKLOADS ?? 'W1 W2 W3').split(/\s+/).filter((w) => w !== '');
  const unknown = workloads.filter((w) => !Object.hasOwn(WORKLOADS, w));
  if (unknown.length > 0) throw new UsageError(`WORKLOADS: unknown ${unknown.join(', ')} (W1, W2, W3, HELLO)`);
  if (workloads.length === 0) throw new UsageError('WORKLOADS: none given');
  const needTokens = workloads.some((w) => !WORKLOADS[w].noTokens);
  const side = (name, url, tokens) => ({
    name,
    base: parseBaseUrl(`${name}_BASE_URL`, url),
    tokens: readTokens(`${name}_TOKENS_JSON`, tokens, needTokens),
    pids: pidsFromEnv(`CPU_PIDS_${name}`),
  });
  const config = {
    sides: [side('A', args[0], args[1]), side('B', args[2], args[3])],
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
    add(`${side.name} = ${side.base}`);
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
      say(`${signal}: stopping`);
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
