// The throughput benchmark of platform-api (`npm run bench` runs it after isolation.mjs; see
// bench/README.md): a receiver that is slow but healthy gets what it is sent (docs/api.md 10.10,
// "Throughput to one receiver").
//
//   W10a  one webhook whose receiver answers every request after BENCH_W10_DELAY_MS (250), offered
//         100 events/s for BENCH_W10_SECONDS (20). Target: it keeps up (at least 0.95 of the
//         offered rate delivered while offered, every event arrived) with a 202→arrival p99
//         under 1 s. 64 attempts in flight at 250 ms is 256/s: DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK
//         allows it, the adaptive limit has to climb there (it starts low).
//   W10b  twenty organizations, one such webhook each, 25 events/s each (500/s in all). Target:
//         500/s together, every event arrived.
//
// One instance on MariaDB with the defaults (nothing but the proxy and CA the harness sets). A
// short warm-up of the server (JIT, pools) goes to an organization of its own with a fast
// receiver, so every measured webhook starts cold, as a new customer's does: the climb of its
// adaptive limit is part of what is measured. The arrival is when the request reached the
// receiver (bench/receiver.mjs records it before the delayed answer), so 202→arrival is the
// service's queueing, not the receiver's 250 ms. After W10a the bench waits until its events have
// all arrived (up to 10 s more), then deletes its webhook, which cancels what is left: W10b
// starts on an empty queue.
// MariaDB's Prepared_stmt_count is read before the server starts and after each part.
//
// Environment (defaults in brackets): BENCH_DATABASE_URL [mysql://root@127.0.0.1:3306],
// BENCH_PORT [3000], BENCH_W10_SECONDS [20], BENCH_W10_DELAY_MS [250], BENCH_W10_RATE [100]
// (events/s to the one webhook of W10a), BENCH_W10_WEBHOOKS [20] and BENCH_W10_RATE_EACH [25]
// (W10b), BENCH_WARMUP [3] (seconds).
import {
  cpuTicks,
  fixed,
  intFromEnv,
  log,
  mb,
  out,
  parseServerUrl,
  runBench,
  sampleRss,
  secondsFromEnv,
  TICKS_PER_SECOND,
} from './harness.mjs';
import {
  arrivalsOf,
  latencies,
  now,
  offer,
  percentile,
  prepareBench,
  preparedStatements,
  preparedStatementsLine,
  RECEIVER_HOST,
  sleep,
  startService,
} from './delivery-harness.mjs';

/** SPEC 10.10: one webhook at 250 ms, 100 events/s, p99 202→arrival under 1 s. */
const P99_TARGET_MS = 1000;

function loadConfig() {
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    port: intFromEnv('BENCH_PORT', 3000, 1),
    seconds: secondsFromEnv('BENCH_W10_SECONDS', 20),
    delayMs: intFromEnv('BENCH_W10_DELAY_MS', 250, 0),
    rate: intFromEnv('BENCH_W10_RATE', 100, 1),
    webhooks: intFromEnv('BENCH_W10_WEBHOOKS', 20, 1),
    rateEach: intFromEnv('BENCH_W10_RATE_EACH', 25, 1),
    warmup: secondsFromEnv('BENCH_WARMUP', 3),
  };
}

/** `rate` events/s in all to `orgs` in turn for the configured time: what arrived, how fast, how late. */
async function measure(config, service, receiver, name, orgs, rate) {
  receiver.reset();
  log(`${name}: ${rate} events/s to ${orgs.length} webhook(s) answering after ${config.delayMs} ms, for ${config.seconds} s`);
  const pid = service.servers[0].child.pid;
  const ticks = cpuTicks(pid);
  const from = now();
  const { accepted, failures } = await offer(service, orgs, rate, config.seconds);
  const to = now();
  const cpuMs = ((cpuTicks(pid) - ticks) * 1000) / TICKS_PER_SECOND;
  const arrived = latencies(accepted, await arrivalsOf(receiver, accepted), from, to);
  const seen = await receiver.bad();
  const result = {
    name,
    webhooks: orgs.length,
    rate,
    accepted: accepted.size,
    arrived: arrived.arrived,
    failures,
    acceptedPerSecond: accepted.size / ((to - from) / 1000),
    deliveredPerSecond: arrived.inWindow / ((to - from) / 1000),
    p50: percentile(arrived.sorted, 50),
    p99: percentile(arrived.sorted, 99),
    peakInFlight: seen.delayedPeakInFlight,
    cpuPercent: (100 * cpuMs) / (to - from),
  };
  result.keepsUp = failures === 0 && result.arrived === result.accepted && result.deliveredPerSecond >= 0.95 * rate;
  log(
    `${name}: ${fixed(result.deliveredPerSecond, 1)} deliveries/s, ${result.arrived}/${result.accepted} arrived, p50 ${fixed(result.p50, 1)} ms, p99 ${fixed(result.p99, 1)} ms`,
  );
  return result;
}

async function main() {
  const config = loadConfig();
  const { secretKey, dns, receiver } = await prepareBench(config);
  const delayed = (name) => `https://${RECEIVER_HOST}/delay/${config.delayMs}/${name}`;
  const organizations = [
    { warm: `https://${RECEIVER_HOST}/w10-warm` },
    { one: delayed('w10a') },
    ...Array.from({ length: config.webhooks }, (_, i) => ({ [`each-${i}`]: delayed(`w10b-${i}`) })),
  ];
  const prepared = [['before', await preparedStatements(config.mariadb)]];
  const service = await startService(config, secretKey, dns, receiver, { organizations });
  const peakRss = sampleRss(service.servers[0].child.pid);
  const [warm, one, ...twenty] = service.orgs;
  const results = [];
  try {
    log(`warm-up: ${config.rate} events/s to a fast receiver for ${config.warmup} s`);
    await offer(service, [warm], config.rate, config.warmup);
    await sleep(1000);
    results.push(await measure(config, service, receiver, 'W10a one webhook', [one], config.rate));
    prepared.push(['after W10a', await service.preparedStatements()]);
    await service.deleteWebhook(one, 'one');
    results.push(await measure(config, service, receiver, `W10b ${config.webhooks} webhooks`, twenty, config.rateEach * twenty.length));
    prepared.push(['after W10b', await service.preparedStatements()]);
  } finally {
    results.peakRssKb = peakRss();
    await service.stop();
  }

  out(`## Throughput to slow but healthy receivers (W10): each answers after ${config.delayMs} ms, ${config.seconds} s offered`);
  out();
  out(
    '| workload | offered events/s | accepted/s | delivered/s in the window | arrived | 202→arrival p50 ms | p99 ms | peak in flight at the receiver | ingest failures | server CPU % | target |',
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const r of results) {
    const target =
      r.webhooks === 1
        ? `${r.keepsUp && r.p99 < P99_TARGET_MS ? 'met' : 'MISSED'} (keeps up, p99 < ${P99_TARGET_MS} ms)`
        : `${r.keepsUp ? 'met' : 'MISSED'} (keeps up: ${r.rate}/s together)`;
    out(
      `| ${r.name} | ${r.rate} | ${fixed(r.acceptedPerSecond, 0)} | ${fixed(r.deliveredPerSecond, 1)} | ${r.arrived}/${r.accepted} | ${fixed(r.p50, 1)} | ${fixed(r.p99, 1)} | ${r.peakInFlight} | ${r.failures} | ${fixed(r.cpuPercent, 0)} | ${target} |`,
    );
  }
  out();
  out(
    `"Keeps up": at least 0.95 of the offered rate delivered while offered, and every accepted event arrived (within 10 s of the end). Server peak RSS ${fixed(mb(results.peakRssKb), 1)} MB.`,
  );
  out();
  out(preparedStatementsLine(prepared, 1));
  out();
  // Every POST /api/events must answer 202: anything else is a failed request, not a slow one.
  if (results.some((r) => r.failures > 0)) process.exitCode = 1;
}

await runBench(main);
