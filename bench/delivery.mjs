// The delivery benchmark of platform-api (`npm run bench` runs it after run.mjs; see bench/README.md).
//
//   W6  POST /api/events to an organization with 3 webhooks, dispatch off in that instance
//       (DELIVERY_CONCURRENCY=0): rps, p50, p99 of the 202s (autocannon).
//   W7  one instance on MariaDB delivering to an HTTPS receiver through an HTTP CONNECT proxy
//       (bench/receiver.mjs, its own process) at fixed offered rates of events: deliveries per
//       second that arrived while events were offered, whether every one arrived (2xx), and the
//       latency from the 202 to the arrival at the receiver, p50 and p99. The events go to
//       BENCH_W7_WEBHOOKS organizations in turn, each with one webhook (one webhook alone is
//       bounded by DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK attempts at a time, by design).
//   ceiling  the same receiver and proxy driven by a plain Node client that signs
//       (standardwebhooks) and posts with keep-alive (undici), as fast as it can: our sustained
//       rate as a fraction of it.
//   W6b POST /api/events/batch, 100 events a request, to an organization with 3 webhooks, dispatch
//       off: events/s accepted, p50, p99 of the 202s; target at least 10× W6's events/s.
//   W7b W7 with its events sent in batches of 100 (BENCH_W7B_RATES); W7 and W7b are run with one
//       and with two instances on one database (BENCH_W7_INSTANCES), events posted to them in turn.
//   costs  per accepted event (W6, W6b) and per delivered event (W7, W7b): statements and bytes
//       written from MariaDB's counters, round trips from the servers' sockets (bench/costs.mjs),
//       the servers' CPU, every process's CPU while the events are offered, and each run's ratio
//       to the ceiling on a line of its own (`ratio W7 0.083`).
//   prepared statements  MariaDB's Prepared_stmt_count before W7's server starts and after each
//       rate, while it runs (docs/api.md 9: at most 256 per instance however long it runs; the
//       count is the whole server's, so it is the service's own only when no one else is
//       connected, which the line under W7's table says).
//   W14 W7 again with every webhook behind OAuth 2.0 (docs/api.md 10.16: the receiver's own token
//       endpoint, tokens for BENCH_W14_EXPIRES_IN seconds): delivered per second against W7's in
//       the same run (target: at least 0.9 of it) and the token requests per minute and webhook
//       (target: one per token lifetime less the 30 s margin, not one per attempt), also printed
//       as `W14 key=value …` lines for scripts.
//
// Environment (defaults in brackets): BENCH_DATABASE_URL [mysql://root@127.0.0.1:3306],
// BENCH_PORT [3000], BENCH_DURATION [10] and BENCH_WARMUP [3] (seconds, W6 and the ceiling),
// BENCH_CONNECTIONS [32], BENCH_W7_RATES [250,500,1000,1500] (events per second),
// BENCH_W7_SECONDS [10] (per rate), BENCH_W7_WEBHOOKS [8] (W14's too), BENCH_W14_EXPIRES_IN [60]
// (seconds), BENCH_W7B_RATES [2000,4000,6000,8000],
// BENCH_W7_INSTANCES [1,2] (W7 and W7b with each), BENCH_SKIP_W6 (W6 and W6b not run), BENCH_BATCHES
// [1] (0: neither W6b nor W7b, for a build from before POST /events/batch).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Webhook } from 'standardwebhooks';
import { ProxyAgent } from 'undici';
import {
  API_PREFIX,
  BenchError,
  expectStatus,
  fixed,
  intFromEnv,
  log,
  mb,
  out,
  parseServerUrl,
  runBench,
  sampleRss,
  secondsFromEnv,
} from './harness.mjs';
import { cpuText, loadAverage, startCosts, statementsText } from './costs.mjs';
import {
  arrivalsOf,
  CA_FILE,
  latencies,
  now,
  offer,
  offerBatches,
  percentile,
  prepareBench,
  preparedStatements,
  preparedStatementsLine,
  RECEIVER_HOST,
  sleep,
  startService,
} from './delivery-harness.mjs';

const PUBLIC_A = '93.184.216.34';

function loadConfig() {
  const rates = (process.env.BENCH_W7_RATES ?? '250,500,1000,1500').split(',').map((r) => intFromEnv('BENCH_W7_RATES', 0, 1, r.trim()));
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    port: intFromEnv('BENCH_PORT', 3000, 1),
    duration: secondsFromEnv('BENCH_DURATION', 10),
    warmup: secondsFromEnv('BENCH_WARMUP', 3),
    connections: intFromEnv('BENCH_CONNECTIONS', 32, 1),
    rates,
    w7Seconds: secondsFromEnv('BENCH_W7_SECONDS', 10),
    w7Webhooks: intFromEnv('BENCH_W7_WEBHOOKS', 8, 1),
    w14ExpiresIn: intFromEnv('BENCH_W14_EXPIRES_IN', 60, 31),
    w7bRates: listFromEnv('BENCH_W7B_RATES', '2000,4000,6000,8000', 1),
    w7Instances: listFromEnv('BENCH_W7_INSTANCES', '1,2', 1),
    // BENCH_BATCHES=0: no W6b or W7b (a build from before POST /events/batch, for comparison)
    batches: process.env.BENCH_BATCHES !== '0',
  };
}

async function w6(config, secretKey, dns, receiver) {
  const hooks = { 'hook-1': `https://${RECEIVER_HOST}/1`, 'hook-2': `https://${RECEIVER_HOST}/2`, 'hook-3': `https://${RECEIVER_HOST}/3` };
  const service = await startService(config, secretKey, dns, receiver, { organizations: [hooks], env: { DELIVERY_CONCURRENCY: '0' } });
  try {
    const [org] = service.orgs;
    const event = (n) => JSON.stringify({ type: 'transaction.created', organization: org.id, data: { amount: n, currency: 'EUR' } });
    const answer = JSON.parse(
      await expectStatus(202, 'POST', `${service.apis[0]}/events`, { headers: service.headers, body: JSON.parse(event(0)) }),
    );
    if (answer.deliveries !== 3) throw new BenchError(`W6: an event made ${answer.deliveries} deliveries, expected 3`);
    const peakRss = sampleRss(service.servers[0].child.pid);
    const run = (seconds) =>
      autocannon({
        url: `http://127.0.0.1:${config.port}`,
        connections: config.connections,
        duration: seconds,
        requests: [{ method: 'POST', path: `${API_PREFIX}/events`, headers: service.headers, body: event(1) }],
      });
    log(`W6 POST /events (3 webhooks, dispatch off): ${config.connections} connections, ${config.warmup} s warm-up + ${config.duration} s`);
    const warm = await run(config.warmup);
    const costs = await startCosts(config, service);
    const measured = await run(config.duration);
    return {
      rps: measured.requests.total / measured.duration,
      p50: measured.latency.p50,
      p99: measured.latency.p99,
      failures: warm.non2xx + warm.errors + measured.non2xx + measured.errors,
      peakRssKb: peakRss(),
      cost: await costs.end(measured.requests.total),
    };
  } finally {
    await service.stop();
  }
}

/** W7's organizations: config.w7Webhooks of them, one webhook each. */
function w7Organizations(config) {
  return Array.from({ length: config.w7Webhooks }, (_, i) => ({ [`w7-${i}`]: `https://${RECEIVER_HOST}/w7-${i}` }));
}

/**
 * W7 (and W7b, `batch` events a request; W14, its own organizations): `instances` servers on one
 * database, fixed offered rates of events to the organizations in turn, posted to the instances in turn.
 */
async function w7(
  config,
  secretKey,
  dns,
  receiver,
  { name = 'W7', instances = 1, batch = 0, rates = config.rates, organizations = w7Organizations(config) } = {},
) {
  const results = [];
  results.name = name;
  results.instances = instances;
  // Before W7's server starts (W6's has stopped): what the rest of the MariaDB server holds.
  results.prepared = [[`before ${name}`, await preparedStatements(config.mariadb)]];
  const service = await startService(config, secretKey, dns, receiver, { organizations, instances });
  const peakRss = service.servers.map((server) => sampleRss(server.child.pid));
  const send = (rate, seconds) => (batch > 0 ? offerBatches(service, rate, seconds, batch) : offer(service, service.orgs, rate, seconds));
  try {
    // Warm-up, thrown away: JIT, connection pools, the kept-alive tunnels.
    log(`${name} warm-up: ${rates[0]} events/s for ${config.warmup} s`);
    await send(rates[0], config.warmup);
    await sleep(2000);
    for (const rate of rates) {
      receiver.reset();
      log(
        `${name} end to end (${instances} instance(s)${batch > 0 ? `, batches of ${batch}` : ''}): ${rate} events/s offered for ${config.w7Seconds} s to ${config.w7Webhooks} webhook(s); load ${loadAverage()}`,
      );
      const costs = await startCosts(config, service, receiver);
      const windowStart = now();
      const { accepted, failures, behind, offeredSeconds } = await send(rate, config.w7Seconds);
      const windowEnd = now();
      const cpu = costs.offered();
      const arrived = latencies(accepted, await arrivalsOf(receiver, accepted), windowStart, windowEnd);
      // The last attempts' records are written within a few ms of their answers.
      await sleep(1000);
      const cost = await costs.end(arrived.arrived);
      const serverMs = Object.entries(cpu.processes)
        .filter(([process]) => process.startsWith('server'))
        .reduce((sum, [, { ms }]) => sum + ms, 0);
      results.push({
        rate,
        accepted: accepted.size,
        arrived: arrived.arrived,
        failures,
        behind,
        deliveredPerSecond: arrived.inWindow / ((windowEnd - windowStart) / 1000),
        offeredPerSecond: accepted.size / offeredSeconds,
        p50: percentile(arrived.sorted, 50),
        p99: percentile(arrived.sorted, 99),
        cpuPercent: (100 * serverMs) / (windowEnd - windowStart),
        cpuUsPerEvent: (1000 * serverMs) / Math.max(accepted.size, 1),
        cpu,
        cost,
      });
      results.prepared.push([`after ${rate}/s`, await service.preparedStatements()]);
      const r = results.at(-1);
      log(
        `${name} ${rate}/s: ${fixed(r.deliveredPerSecond, 0)} deliveries/s, ${r.arrived}/${r.accepted} arrived, p50 ${fixed(r.p50, 1)} ms, p99 ${fixed(r.p99, 1)} ms; ${statementsText(cost.perEvent)} statements per delivered event; ${cpuText(cpu)}`,
      );
    }
  } finally {
    results.peakRssKb = Math.max(...peakRss.map((peak) => peak()));
    await service.stop();
  }
  return results;
}

/**
 * W7 with every webhook behind OAuth 2.0 (docs/api.md 10.16): the receiver gives out tokens for
 * config.w14ExpiresIn seconds at /oauth/token and refuses an attempt without one (401). The
 * token requests are counted from the server's start to its end, the warm-up's included.
 */
async function w14(config, secretKey, dns, receiver) {
  const organizations = Array.from({ length: config.w7Webhooks }, (_, i) => ({
    [`w14-${i}`]: {
      url: `https://${RECEIVER_HOST}/oauth/hooks/w14-${i}`,
      auth: {
        type: 'oauth2',
        tokenUrl: `https://${RECEIVER_HOST}/oauth/token`,
        clientId: `bench-${i}`,
        clientSecret: randomBytes(16).toString('hex'),
      },
    },
  }));
  const before = await receiver.oauth();
  const started = now();
  const results = await w7(config, secretKey, dns, receiver, { name: 'W14', organizations });
  const after = await receiver.oauth();
  return Object.assign(results, {
    tokenRequests: after.tokenRequests - before.tokenRequests,
    unauthorized: after.unauthorized - before.unauthorized,
    minutes: (now() - started) / 60_000,
  });
}

/** A plain client: sign and post through the same proxy to the same receiver, keep-alive, as fast as it goes. */
async function ceiling(config, receiver) {
  const dispatcher = new ProxyAgent({
    uri: receiver.proxyUrl,
    requestTls: { servername: RECEIVER_HOST, ca: [readFileSync(CA_FILE, 'utf8')] },
  });
  const signer = new Webhook(`whsec_${randomBytes(32).toString('base64')}`);
  const body = JSON.stringify({ type: 'transaction.created', timestamp: new Date().toISOString(), data: { amount: 1, currency: 'EUR' } });
  log(`ceiling: a plain Node client, ${config.connections} concurrent, ${config.duration} s`);
  let done = 0;
  let failures = 0;
  const until = performance.now() + config.duration * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const id = `msg_${randomBytes(8).toString('hex')}`;
      const at = new Date();
      try {
        const res = await dispatcher.request({
          origin: `https://${PUBLIC_A}:443`,
          path: '/ceiling',
          method: 'POST',
          headers: {
            host: RECEIVER_HOST,
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(Math.floor(at / 1000)),
            'webhook-signature': signer.sign(id, at, body),
          },
          body,
        });
        await res.body.dump();
        if (res.statusCode >= 200 && res.statusCode < 300) done++;
        else failures++;
      } catch {
        failures++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: config.connections }, worker));
  await dispatcher.close();
  return { rps: done / ((performance.now() - started) / 1000), failures };
}

function report(config, w6Result, w7Results, ceilingResult) {
  out('## Delivery (W6, W7)');
  out();
  out('| workload | rps | p50 ms | p99 ms | failures | peak RSS MB |');
  out('|---|---:|---:|---:|---:|---:|');
  out(
    `| W6 POST /events, 3 webhooks, dispatch off | ${fixed(w6Result.rps, 0)} | ${fixed(w6Result.p50, 2)} | ${fixed(w6Result.p99, 2)} | ${w6Result.failures} | ${fixed(mb(w6Result.peakRssKb), 1)} |`,
  );
  out();
  out(
    `| W7 offered events/s (${config.w7Webhooks} webhook(s)) | accepted/s | delivered/s in the window | arrived | 202→arrival p50 ms | p99 ms | ingest failures | server CPU % | server CPU µs per event |`,
  );
  out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of w7Results) {
    out(
      `| ${r.rate} | ${fixed(r.offeredPerSecond, 0)} | ${fixed(r.deliveredPerSecond, 0)} | ${r.arrived}/${r.accepted} | ${fixed(r.p50, 1)} | ${fixed(r.p99, 1)} | ${r.failures} | ${fixed(r.cpuPercent, 0)} | ${fixed(r.cpuUsPerEvent, 0)} |`,
    );
  }
  const sustained = Math.max(
    0,
    ...w7Results.filter((r) => r.arrived === r.accepted && r.failures === 0 && r.deliveredPerSecond >= 0.95 * r.rate).map((r) => r.rate),
  );
  const peak = w7Results.reduce((best, r) => (r.deliveredPerSecond > best.deliveredPerSecond ? r : best), w7Results[0]);
  out();
  out(
    `W7 sustained: ${sustained === 0 ? 'none of the offered rates' : `${sustained} deliveries/s`} (every one 2xx and delivered while offered, at least 0.95 of the rate); most delivered: ${fixed(peak.deliveredPerSecond, 0)}/s (at ${peak.rate}/s offered); ceiling (plain client, same receiver and proxy): ${fixed(ceilingResult.rps, 0)}/s; most delivered / ceiling ${fixed(peak.deliveredPerSecond / ceilingResult.rps, 2)}. W7 server peak RSS ${fixed(mb(w7Results.peakRssKb), 1)} MB.`,
  );
  out();
  out(preparedStatementsLine(w7Results.prepared, 1));
  out();
}

function reportW14(config, w7Results, w14Results) {
  out('## Delivery behind OAuth 2.0 (W14)');
  out();
  out(
    `| offered events/s (${config.w7Webhooks} webhook(s), tokens for ${config.w14ExpiresIn} s) | W7 delivered/s | W14 delivered/s | W14 / W7 | W14 arrived | W14 p50 ms | W14 p99 ms | W14 server CPU µs per event |`,
  );
  out('|---:|---:|---:|---:|---:|---:|---:|---:|');
  const ratios = w14Results.map((r, i) => ({ rate: r.rate, w7: w7Results[i].deliveredPerSecond, w14: r.deliveredPerSecond }));
  for (const [i, r] of w14Results.entries()) {
    out(
      `| ${r.rate} | ${fixed(ratios[i].w7, 0)} | ${fixed(r.deliveredPerSecond, 0)} | ${fixed(ratios[i].w14 / ratios[i].w7, 2)} | ${r.arrived}/${r.accepted} | ${fixed(r.p50, 1)} | ${fixed(r.p99, 1)} | ${fixed(r.cpuUsPerEvent, 0)} |`,
    );
  }
  const perMinute = w14Results.tokenRequests / w14Results.minutes / config.w7Webhooks;
  // A token is reused for its lifetime less 30 s: each webhook asks once at its first attempt, then once per reuse period.
  const reuseSeconds = config.w14ExpiresIn - 30;
  const expected = config.w7Webhooks * (1 + Math.floor((w14Results.minutes * 60) / reuseSeconds));
  const lowest = Math.min(...ratios.map((r) => r.w14 / r.w7));
  out();
  out(
    `W14: lowest W14 / W7 ${fixed(lowest, 2)} (target at least 0.90); ${w14Results.tokenRequests} token requests in ${fixed(w14Results.minutes, 2)} min for ${config.w7Webhooks} webhooks, ${fixed(perMinute, 2)} per minute and webhook (target: one per ${reuseSeconds} s of reuse, ${expected} in all over this run, the first of each webhook included); ${w14Results.unauthorized} attempts refused (401).`,
  );
  out();
  for (const r of ratios)
    out(`W14 rate=${r.rate} w7_delivered_per_s=${fixed(r.w7, 1)} w14_delivered_per_s=${fixed(r.w14, 1)} ratio=${fixed(r.w14 / r.w7, 3)}`);
  out(
    `W14 token_requests=${w14Results.tokenRequests} expected_token_requests=${expected} minutes=${fixed(w14Results.minutes, 3)} webhooks=${config.w7Webhooks} per_minute_per_webhook=${fixed(perMinute, 3)} unauthorized=${w14Results.unauthorized} lowest_ratio=${fixed(lowest, 3)}`,
  );
  out(`ratio W14 ${fixed(lowest, 3)}`);
  out();
}

// ---- issue 32: W6b, W7b, the runs with two instances, and what each costs -----------------

/** Events per request of W6b and W7b (docs/api.md 10.1.1: at most 100). */
const BATCH = 100;

/** A comma-separated list of whole numbers. */
function listFromEnv(name, fallback, min) {
  return (process.env[name] || fallback).split(',').map((item) => intFromEnv(name, 0, min, item.trim()));
}

/** W6b: W6 with 100 events a request (POST /events/batch). */
async function w6b(config, secretKey, dns, receiver) {
  const hooks = { 'hook-1': `https://${RECEIVER_HOST}/1`, 'hook-2': `https://${RECEIVER_HOST}/2`, 'hook-3': `https://${RECEIVER_HOST}/3` };
  // Dispatch off, every delivery stays pending: W6b's 13 s leave more than the default 100 000
  // (the count behind the limit still runs, once a second, as in W6).
  const env = { DELIVERY_CONCURRENCY: '0', DELIVERY_PENDING_PER_ORG_MAX: '100000000' };
  const service = await startService(config, secretKey, dns, receiver, { organizations: [hooks], env });
  try {
    const [org] = service.orgs;
    const body = {
      events: Array.from({ length: BATCH }, (_, n) => ({
        type: 'transaction.created',
        organization: org.id,
        data: { amount: n, currency: 'EUR' },
      })),
    };
    const answer = JSON.parse(await expectStatus(202, 'POST', `${service.apis[0]}/events/batch`, { headers: service.headers, body }));
    if (answer.events.length !== BATCH || answer.events.some(({ deliveries }) => deliveries !== 3)) {
      throw new BenchError(`W6b: a batch was answered ${JSON.stringify(answer).slice(0, 200)}, expected ${BATCH} events of 3 deliveries`);
    }
    const peakRss = sampleRss(service.servers[0].child.pid);
    const run = (seconds) =>
      autocannon({
        url: `http://127.0.0.1:${config.port}`,
        connections: config.connections,
        duration: seconds,
        requests: [{ method: 'POST', path: `${API_PREFIX}/events/batch`, headers: service.headers, body: JSON.stringify(body) }],
      });
    log(
      `W6b POST /events/batch (${BATCH} events, 3 webhooks, dispatch off): ${config.connections} connections, ${config.warmup} s warm-up + ${config.duration} s; load ${loadAverage()}`,
    );
    const warm = await run(config.warmup);
    const costs = await startCosts(config, service);
    const measured = await run(config.duration);
    const rps = measured.requests.total / measured.duration;
    return {
      rps,
      eventsPerSecond: rps * BATCH,
      p50: measured.latency.p50,
      p99: measured.latency.p99,
      failures: warm.non2xx + warm.errors + measured.non2xx + measured.errors,
      peakRssKb: peakRss(),
      cost: await costs.end(measured.requests.total * BATCH),
    };
  } finally {
    await service.stop();
  }
}

/** W7 and W7b with each count of instances (BENCH_W7_INSTANCES), in that order. */
async function endToEndRuns(config, secretKey, dns, receiver) {
  const runs = [];
  for (const instances of config.w7Instances) {
    const suffix = instances === 1 ? '' : `x${instances}`;
    runs.push(await w7(config, secretKey, dns, receiver, { name: `W7${suffix}`, instances }));
    if (config.batches) {
      runs.push(await w7(config, secretKey, dns, receiver, { name: `W7b${suffix}`, instances, batch: BATCH, rates: config.w7bRates }));
    }
  }
  return runs;
}

/** The rate of a run that counts: the most delivered per second while offered at a rate where every event was accepted and delivered. */
function bestOf(run) {
  const complete = run.filter((r) => r.failures === 0 && r.arrived === r.accepted && r.accepted > 0);
  return complete.reduce((best, r) => (best === undefined || r.deliveredPerSecond > best.deliveredPerSecond ? r : best), undefined);
}

function reportBatches(config, w6Result, w6bResult, runs, ceilingResult) {
  const f = fixed;
  const bytes = (cost) => `${f(cost.perEvent.redoBytes, 0)} / ${f(cost.perEvent.dataBytes, 0)}`;
  out('## Batches and costs (W6b, W7b; two instances)');
  out();
  if (w6bResult !== undefined) {
    out(
      `| workload | events/s | requests/s | p50 ms | p99 ms | failures | peak RSS MB | statements per event (reads, writes, tx, other; prepared) | round trips per event | server CPU µs per event | redo / data bytes per event | CPU % of one core while measured | load before → after; MariaDB's statements/s before |`,
    );
    out('|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|');
    for (const [name, r, perRequest] of [
      ['W6 POST /events, 3 webhooks, dispatch off', w6Result, 1],
      [`W6b POST /events/batch, ${BATCH} events, 3 webhooks, dispatch off`, w6bResult, BATCH],
    ]) {
      const events = r.eventsPerSecond ?? r.rps;
      out(
        `| ${name} | ${f(events, 0)} | ${f(events / perRequest, 0)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | ${r.failures} | ${f(mb(r.peakRssKb), 1)} | ${statementsText(r.cost.perEvent)} | ${f(r.cost.roundTripsPerEvent, 2)} | ${f(r.cost.serverUsPerEvent, 0)} | ${bytes(r.cost)} | ${cpuText(r.cost.cpu)} | ${r.cost.loadBefore} → ${r.cost.loadAfter}; ${r.cost.background} statements/s before |`,
      );
    }
    out();
    out(`W6b / W6 events/s: ${f(w6bResult.eventsPerSecond / w6Result.rps, 1)} (target ≥ 10).`);
    out();
  }
  out(
    `| run | offered events/s | accepted/s | delivered/s in the window | arrived | p50 ms | p99 ms | statements per delivered event (reads, writes, tx, other; prepared) | round trips per delivered event | server CPU µs per delivered event | redo / data bytes per delivered event | CPU % of one core while offered | load before → after; MariaDB's statements/s before |`,
  );
  out('|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---|---|');
  for (const run of runs) {
    for (const r of run) {
      out(
        `| ${run.name} | ${r.rate} | ${f(r.offeredPerSecond, 0)} | ${f(r.deliveredPerSecond, 0)} | ${r.arrived}/${r.accepted}${r.failures > 0 ? ` (${r.failures} refused)` : ''} | ${f(r.p50, 1)} | ${f(r.p99, 1)} | ${statementsText(r.cost.perEvent)} | ${f(r.cost.roundTripsPerEvent, 2)} | ${f(r.cost.serverUsPerEvent, 0)} | ${bytes(r.cost)} | ${cpuText(r.cpu)} | ${r.cost.loadBefore} → ${r.cost.loadAfter}; ${r.cost.background} statements/s before |`,
      );
    }
  }
  out();
  out(`Ceiling (plain client, same receiver and proxy, at the end of the run): ${f(ceilingResult.rps, 0)}/s.`);
  const others = Math.max(...runs.flatMap((run) => run.map((r) => r.cost.delta.others)));
  if (others > 0)
    out(`Other clients were connected to the MariaDB server during the runs (up to ${others}): the statement counts include their work.`);
  out();
  for (const run of runs) {
    const best = bestOf(run);
    const ratio = best === undefined ? 0 : best.deliveredPerSecond / ceilingResult.rps;
    out(
      `${run.name}: ${best === undefined ? 'no rate had every event delivered' : `${f(best.deliveredPerSecond, 0)} deliveries/s at ${best.rate}/s offered, every event delivered; ${statementsText(best.cost.perEvent)} statements and ${f(best.cost.roundTripsPerEvent, 2)} round trips per delivered event`}; peak RSS ${f(mb(run.peakRssKb), 1)} MB (the largest instance); target ${run.name.startsWith('W7b') ? '≥ 0.25' : '≥ 0.10'} of the ceiling.`,
    );
    out(`ratio ${run.name} ${ratio.toFixed(3)}`);
  }
  out();
}

async function main() {
  const config = loadConfig();
  const { secretKey, dns, receiver } = await prepareBench(config);
  const w6Result = process.env.BENCH_SKIP_W6
    ? { rps: NaN, p50: NaN, p99: NaN, failures: 0, peakRssKb: NaN, cost: undefined }
    : await w6(config, secretKey, dns, receiver);
  const w6bResult = process.env.BENCH_SKIP_W6 || !config.batches ? undefined : await w6b(config, secretKey, dns, receiver);
  const runs = await endToEndRuns(config, secretKey, dns, receiver);
  const w7Results = runs.find((run) => run.name === 'W7') ?? runs[0];
  const ceilingResult = await ceiling(config, receiver);
  const w14Results = await w14(config, secretKey, dns, receiver);
  report(config, w6Result, w7Results, ceilingResult);
  reportBatches(config, w6Result, w6bResult, runs, ceilingResult);
  reportW14(config, w7Results, w14Results);
  if (w6Result.failures > 0 || (w6bResult?.failures ?? 0) > 0) process.exitCode = 1;
}

await runBench(main);
