// What an event costs on our side, phase by phase (issue 32: the cost table of
// docs/performance.md). W7's shape: 8 organizations (BENCH_W7_WEBHOOKS), one webhook each at the
// bench receiver, events offered at a fixed rate, one server on MariaDB at a time:
//
//   ingest       a server with dispatch off (DELIVERY_CONCURRENCY=0) takes BENCH_PHASE_EVENTS events
//                at BENCH_PHASE_RATE/s as single POST /events, then as many in batches of 100
//                (POST /events/batch): its CPU (/proc), statements and round trips per accepted
//                event. Nothing is delivered.
//   delivery     that server stopped, another one (the defaults) started on the database: it finds
//                the pending deliveries by its scan, claims and delivers them (no hand-off): its
//                CPU, statements and round trips per delivered event.
//   end to end   the same server then takes the events itself at the same rate (W7's path: the
//                deliveries handed over to its dispatcher as ingest writes them), single, then in
//                batches: per delivered event.
//
// The delivering server runs with --cpu-prof. Each of its samples in a window is given to the phase
// of the innermost frame of ours on its stack (frames mapped to their sources through dist/'s
// source maps): ingest (the HTTP request: Express, Nest, auth, the events module), claim (the scan,
// the claim, the hand-off and the scheduler), attempt (targets, opening, signing, undici), record
// (the recorder, the record's statements, the endpoint's health). Samples with no frame of ours
// are the database client's (our database layer and mysql2 after the pool's asynchronous acquire
// of a connection, and mysql2 reading answers in its socket's callbacks: the caller is not on the
// stack), the garbage collector's, or the rest (timers, Node's internals). The database client's
// samples are shared out by the bytes each phase sent to MariaDB and read back, which
// bench/sql-census.cjs (preloaded into both servers) counts from the wire by phase, with the
// commands and the statements in them. The
// shares of the busy samples are scaled to the server's CPU from /proc (which also counts its
// other threads); the census's own work (a few regular expressions per command) is in it.
//
// Environment (defaults in brackets): BENCH_DATABASE_URL, BENCH_PORT [3000], BENCH_PHASE_EVENTS
// [10000], BENCH_PHASE_RATE [500], BENCH_W7_WEBHOOKS [8], BENCH_PHASE_PROFILE_DIR [a temporary
// directory, removed; set it to keep the .cpuprofile], BENCH_BATCHES [1] (0: no batches, for a build from
// before POST /events/batch).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuText, loadAverage, startCosts, statementsText } from './costs.mjs';
import { arrivalsOf, offer, offerBatches, RECEIVER_HOST, sleep, startReceiver, startService } from './delivery-harness.mjs';
import {
  atCleanup,
  ROOT,
  fixed,
  intFromEnv,
  log,
  out,
  parseServerUrl,
  requireDist,
  requirePortFree,
  runBench,
  startDns,
  stop,
} from './harness.mjs';

const BATCH = 100;
const PHASES = ['ingest', 'claim', 'attempt', 'record', 'database client', 'gc', 'other'];
/** The phases that statements belong to (bench/sql-census.cjs). */
const STATEMENT_PHASES = ['ingest', 'claim', 'attempt', 'record'];
const CENSUS = join(ROOT, 'bench', 'sql-census.cjs');

function loadConfig() {
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    port: intFromEnv('BENCH_PORT', 3000, 1),
    events: intFromEnv('BENCH_PHASE_EVENTS', 10_000, BATCH),
    rate: intFromEnv('BENCH_PHASE_RATE', 500, 1),
    webhooks: intFromEnv('BENCH_W7_WEBHOOKS', 8, 1),
    profileDir: process.env.BENCH_PHASE_PROFILE_DIR,
    batches: process.env.BENCH_BATCHES !== '0',
  };
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/** A window's costs with what the server's profile says of it: `from`/`to` on the monotonic clock (V8's profile clock). */
async function window(config, service, receiver, name, units, work) {
  log(`${name}; load ${loadAverage()}`);
  const [server] = service.servers;
  const costs = await startCosts(config, service, receiver, { background: !work.busyAtStart });
  const censusBefore = await census(server);
  const from = monotonicUs();
  const done = await work.run();
  const cpu = costs.offered();
  const to = monotonicUs();
  await sleep(1000);
  const cost = await costs.end(units(done));
  const censusAfter = await census(server);
  const byPhase = Object.fromEntries(
    Object.keys(censusAfter).map((phase) => {
      const before = censusBefore[phase] ?? {};
      const after = censusAfter[phase];
      return [phase, Object.fromEntries(Object.keys(after).map((key) => [key, after[key] - (before[key] ?? 0)]))];
    }),
  );
  log(
    `${name}: ${statementsText(cost.perEvent)} statements per event, ${fixed(cost.serverUsPerEvent, 0)} µs of server CPU; ${cpuText(cpu)}`,
  );
  return { name, from, to, cpu, cost, census: byPhase };
}

/** What bench/sql-census.cjs has counted in this server so far ({} when it cannot say). */
async function census(server) {
  try {
    process.kill(server.child.pid, 'SIGUSR2');
    await sleep(200);
    return JSON.parse(readFileSync(server.censusFile, 'utf8')).counts;
  } catch {
    return {};
  }
}

/** W7's events: `count` at `rate`, single or in batches, to `service`'s instances; the ids accepted. */
async function send(service, rate, count, batch) {
  const seconds = count / rate;
  const { accepted, failures } = batch
    ? await offerBatches(service, rate, seconds, BATCH)
    : await offer(service, service.orgs, rate, seconds);
  if (failures > 0) throw new Error(`${failures} events were not accepted`);
  return accepted;
}

// ---- the profile's samples by phase -------------------------------------------------------

/** The phase of a frame of ours (or of a library that works for one phase only); undefined for the neutral ones. */
const RULES = [
  [
    /delivery\/dispatch\/(attempt-records|attempt-recorder|endpoint-health\.service|endpoint-health\.repository|webhook-disabling\.service|retry-policy)\.js$/,
    () => 'record',
  ],
  [/delivery\/dispatch\/delivery-transitions\.js$/, (fn) => (/record|writeAttempts|trimAttempts/.test(fn) ? 'record' : 'claim')],
  [/delivery\/dispatch\/(attempt-runner|webhook-sender|attempt-outcome|webhook-signature)\.js$/, () => 'attempt'],
  [/delivery\/dispatch\/delivery-dispatcher\.js$/, (fn) => (/^(startOne|attempt|attemptSpan)$/.test(fn) ? 'attempt' : 'claim')],
  [/delivery\/dispatch\/delivery-queue\.js$/, (fn) => (fn === 'targets' ? 'attempt' : 'claim')],
  [/delivery\/dispatch\/(held-claims|scheduling\/[^/]+)\.js$/, () => 'claim'],
  [/delivery\/dispatch-signal\.js$/, () => 'claim'],
  [/build\/(delivery\/events|auth|http|identity)\//, () => 'ingest'],
  [/build\/url-safety\//, () => 'attempt'],
  [/node_modules\/(undici|standardwebhooks)\//, () => 'attempt'],
  [
    /node_modules\/(@nestjs|express|router|body-parser|raw-body|class-validator|class-transformer|helmet|finalhandler|on-finished|type-is|content-type|qs|iconv-lite|path-to-regexp)\//,
    () => 'ingest',
  ],
  [/^node:_http_(server|incoming|common|outgoing)$/, () => 'ingest'],
];

/** Where a profile's frame comes from: its original source (through the bundle's source map), else its URL. */
function sourceLookup() {
  const maps = new Map();
  const mapOf = (url) => {
    if (!maps.has(url)) {
      let map;
      try {
        map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(url)}.map`, 'utf8')));
      } catch {
        map = undefined;
      }
      maps.set(url, map);
    }
    return maps.get(url);
  };
  return ({ url, lineNumber, columnNumber }) => {
    if (!url.startsWith('file://')) return url;
    const entry = mapOf(url)?.findEntry(lineNumber, columnNumber);
    return entry?.originalSource ?? url;
  };
}

/** Per window, the busy samples of each phase (PHASES). */
function samplesByPhase(profile, windows) {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const sourceOf = sourceLookup();
  const phases = new Map();
  const phaseOf = (id) => {
    if (phases.has(id)) return phases.get(id);
    let phase;
    let database = false;
    const leaf = nodes.get(id).callFrame.functionName;
    for (let at = id; at !== undefined && phase === undefined; at = parents.get(at)) {
      const frame = nodes.get(at).callFrame;
      const source = sourceOf(frame);
      if (/node_modules\/(mysql2|sql-escaper)\/|build\/database\//.test(source)) database = true;
      phase = RULES.find(([pattern]) => pattern.test(source))?.[1](frame.functionName);
    }
    phase ??= leaf === '(idle)' ? 'idle' : leaf === '(garbage collector)' ? 'gc' : database ? 'database client' : 'other';
    phases.set(id, phase);
    return phase;
  };
  const counts = windows.map(() => Object.fromEntries(PHASES.map((phase) => [phase, 0])));
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i];
    const w = windows.findIndex(({ from, to }) => at >= from && at <= to);
    if (w < 0) return;
    const phase = phaseOf(id);
    if (phase !== 'idle') counts[w][phase]++;
  });
  return counts;
}

// ---- the run ------------------------------------------------------------------------------

async function main() {
  const config = loadConfig();
  requireDist();
  await requirePortFree(config.port);
  await requirePortFree(config.port + 1);
  const profileDir = config.profileDir ?? mkdtempSync(join(tmpdir(), 'pa-phases-'));
  mkdirSync(profileDir, { recursive: true });
  if (config.profileDir === undefined) atCleanup(() => rmSync(profileDir, { recursive: true, force: true }));
  const secretKey = randomBytes(32).toString('base64');
  const dns = await startDns();
  const receiver = await startReceiver();
  const organizations = Array.from({ length: config.webhooks }, (_, i) => ({ [`p-${i}`]: `https://${RECEIVER_HOST}/p-${i}` }));
  const censusFile = (name) => join(profileDir, `sql-census-${name}.json`);
  const serverOptions = { nodeArgs: ['--require', CENSUS] };
  const service = await startService(config, secretKey, dns, receiver, {
    organizations,
    env: { DELIVERY_CONCURRENCY: '0', BENCH_SQL_CENSUS_FILE: censusFile('ingest') },
    serverOptions,
  });
  service.servers[0].censusFile = censusFile('ingest');
  const rows = [];
  try {
    const [ingestOnly] = service.servers;
    const ingesting = { ...service, servers: [ingestOnly] };
    // Warm-up (JIT, pools), thrown away: it is delivered with the rest, and counted out below.
    await send(ingesting, config.rate, Math.min(config.events, 2 * config.rate), false);
    if (config.batches) await send(ingesting, config.rate, Math.min(config.events, 2 * config.rate), true);
    const accepted = new Map();
    const ingest = (batch) => ({
      run: async () => {
        const ids = await send(ingesting, config.rate, config.events, batch);
        for (const [id, at] of ids) accepted.set(id, at);
        return ids.size;
      },
    });
    rows.push(await window(config, ingesting, receiver, `ingest, single events (dispatch off)`, (n) => n, ingest(false)));
    if (config.batches) {
      rows.push(await window(config, ingesting, receiver, `ingest, batches of ${BATCH} (dispatch off)`, (n) => n, ingest(true)));
    }
    await stop(ingestOnly.child);

    receiver.reset();
    const delivering = await service.startAnother(
      { DELIVERY_CONCURRENCY: '256', BENCH_SQL_CENSUS_FILE: censusFile('delivery') },
      { ...serverOptions, profileDir },
    );
    delivering.censusFile = censusFile('delivery');
    const alone = { ...service, servers: [delivering], apis: [service.apis.at(-1)] };
    const profiled = [];
    // The delivery of what was ingested above (and of the warm-up's events): what arrives in the window.
    profiled.push(
      await window(config, alone, receiver, 'delivery of pending deliveries (scan and claim, no hand-off)', (n) => n, {
        busyAtStart: true,
        run: async () => {
          const from = Date.now();
          const arrivals = await arrivalsOf(receiver, accepted, 300_000);
          return [...arrivals.values()].filter((at) => at >= from).length;
        },
      }),
    );
    for (const batch of config.batches ? [false, true] : [false]) {
      receiver.reset();
      await sleep(1000);
      profiled.push(
        await window(config, alone, receiver, `end to end, ${batch ? `batches of ${BATCH}` : 'single events'} (hand-off)`, (n) => n, {
          run: async () => {
            const ids = await send(alone, config.rate, config.events, batch);
            const arrivals = await arrivalsOf(receiver, ids, 60_000);
            return [...ids.keys()].filter((id) => arrivals.has(id)).length;
          },
        }),
      );
    }
    await stop(delivering.child);
    const file = readdirSync(profileDir).find((name) => name.endsWith(`.${delivering.child.pid}.0.001.cpuprofile`));
    const counts = file ? samplesByPhase(JSON.parse(readFileSync(join(profileDir, file), 'utf8')), profiled) : [];
    profiled.forEach((row, i) => (row.samples = counts[i]));
    rows.push(...profiled);
  } finally {
    await service.stop();
  }
  report(config, rows);
}

/** CPU µs per event of each of STATEMENT_PHASES: the profile's own samples, the database client's by bytes on the wire, GC and the rest pro rata. */
function spread(cost, census, samples) {
  if (samples === undefined) return STATEMENT_PHASES.map((phase) => (phase === 'ingest' ? cost.serverUsPerEvent : 0));
  const busy = Object.values(samples).reduce((sum, n) => sum + n, 0);
  // mysql2's work is formatting what it sends and parsing what it reads: shared by bytes on the wire.
  const bytes = STATEMENT_PHASES.map((phase) => (census[phase]?.sent ?? 0) + (census[phase]?.received ?? 0));
  const allBytes = bytes.reduce((sum, n) => sum + n, 0);
  const own = STATEMENT_PHASES.map((phase, i) => samples[phase] + (allBytes > 0 ? (samples['database client'] * bytes[i]) / allBytes : 0));
  const owned = own.reduce((sum, n) => sum + n, 0);
  const shared = samples.gc + samples.other + (allBytes > 0 ? 0 : samples['database client']);
  return own.map((n) => (busy > 0 && owned > 0 ? (cost.serverUsPerEvent * (n + (shared * n) / owned)) / busy : NaN));
}

function report(config, rows) {
  const f = fixed;
  out(
    `## What an event costs, phase by phase (${config.webhooks} organizations, one webhook each; ${config.events} events at ${config.rate}/s per window)`,
  );
  out();
  out(
    `| window | events | server CPU µs per event | ${PHASES.map((phase) => `${phase} µs`).join(' | ')} | statements per event (reads, writes, tx, other; prepared) | round trips per event | redo / data bytes per event | CPU % of one core | load before → after; statements/s before |`,
  );
  out(`|---|---:|---:|${PHASES.map(() => '---:|').join('')}---|---:|---:|---|---|`);
  for (const { name, cpu, cost, samples } of rows) {
    const busy = samples ? Object.values(samples).reduce((sum, n) => sum + n, 0) : 0;
    const split = PHASES.map((phase) => (busy > 0 ? f((cost.serverUsPerEvent * samples[phase]) / busy, 0) : '-'));
    out(
      `| ${name} | ${cost.units} | ${f(cost.serverUsPerEvent, 0)} | ${split.join(' | ')} | ${statementsText(cost.perEvent)} | ${f(cost.roundTripsPerEvent, 2)} | ${f(cost.perEvent.redoBytes, 0)} / ${f(cost.perEvent.dataBytes, 0)} | ${cpuText(cpu)} | ${cost.loadBefore} → ${cost.loadAfter}; ${cost.background ?? '-'} |`,
    );
  }
  out();
  out(
    'Phases from the delivering server\'s CPU profile (main thread), scaled to its /proc CPU; "-" where it was not profiled (the ingest-only server). "database client": our database layer and mysql2 where no frame of ours is on the stack (after the pool\'s acquire, and reading answers).',
  );
  out();
  out('### By phase: commands (round trips) and statements per event from the wire, and CPU µs per event with the shared work spread');
  out();
  out(
    `| window | ${STATEMENT_PHASES.map((phase) => `${phase}: round trips / statements`).join(' | ')} | other | ${STATEMENT_PHASES.map((phase) => `${phase} µs`).join(' | ')} |`,
  );
  out(`|---|${STATEMENT_PHASES.map(() => '---:|').join('')}---|${STATEMENT_PHASES.map(() => '---:|').join('')}`);
  for (const { name, cost, census, samples } of rows) {
    const per = (phase, what) => (census[phase]?.[what] ?? 0) / cost.units;
    const rest = Object.keys(census).filter((phase) => !STATEMENT_PHASES.includes(phase));
    const restText = rest.map((phase) => `${phase} ${f(per(phase, 'commands'), 2)} / ${f(per(phase, 'statements'), 2)}`).join(', ') || '-';
    const us = spread(cost, census, samples).map((value) => f(value, 0));
    out(
      `| ${name} | ${STATEMENT_PHASES.map((phase) => `${f(per(phase, 'commands'), 2)} / ${f(per(phase, 'statements'), 2)}`).join(' | ')} | ${restText} | ${us.join(' | ')} |`,
    );
  }
  out();
  out(
    "µs with the shared work spread: the database client's samples shared by the bytes each phase sent and read, the garbage collector's and the rest pro rata of the phases' own; for the ingest-only server (not profiled), all of it is ingest.",
  );
  const others = Math.max(...rows.map(({ cost }) => cost.delta.others));
  if (others > 0) out(`Other clients were connected to the MariaDB server (up to ${others}): the statement counts include their work.`);
}

await runBench(main);
