// The ordered-delivery benchmark of platform-api (`npm run bench` runs it after recovery.mjs; see
// bench/README.md): a webhook with `"ordered": true` (docs/api.md 10.18) gets one attempt at a
// time, so its rate is bounded by its receiver's answer time; the bench says how close it comes,
// and that it delays no one else.
//
//   W15  one ordered webhook of organization A whose receiver answers after BENCH_W15_DELAY_MS
//        (10): the bound is 1 000 / 10 = 100 deliveries/s. A is offered BENCH_W15_RATE (150)
//        events/s for BENCH_W15_SECONDS (15), more than the bound, so its head is never idle:
//        deliveries/s while offered, as a share of the bound, and whether they arrived in the
//        order their events were accepted (inversions counted). Beside it, organization B's one
//        healthy webhook gets BENCH_W15_B_RATE (50) events/s: its 202→arrival p99, against B alone
//        before it (SPEC 10.10: within 2× of alone, or within 100 ms of it, whichever is larger).
//
// One instance on MariaDB with the defaults. A's webhook is deleted after its phase (cancelling
// its backlog). Environment (defaults in brackets): BENCH_DATABASE_URL
// [mysql://root@127.0.0.1:3306], BENCH_PORT [3000], BENCH_W15_SECONDS [15], BENCH_W15_DELAY_MS
// [10], BENCH_W15_RATE [150], BENCH_W15_B_RATE [50], BENCH_WARMUP [3].
import { cpus } from 'node:os';
import { fixed, intFromEnv, log, machineTicks, out, parseServerUrl, runBench, secondsFromEnv } from './harness.mjs';
import { arrivalsOf, latencies, now, offer, percentile, prepareBench, RECEIVER_HOST, sleep, startService } from './delivery-harness.mjs';

function loadConfig() {
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    port: intFromEnv('BENCH_PORT', 3000, 1),
    seconds: secondsFromEnv('BENCH_W15_SECONDS', 15),
    delayMs: intFromEnv('BENCH_W15_DELAY_MS', 10, 1),
    rate: intFromEnv('BENCH_W15_RATE', 150, 1),
    bRate: intFromEnv('BENCH_W15_B_RATE', 50, 1),
    warmup: secondsFromEnv('BENCH_WARMUP', 3),
  };
}

/** SPEC 10.10: within 2x of alone, or within 100 ms of it, whichever is larger. */
const p99Bound = (alone) => Math.max(2 * alone, alone + 100);

/** How many pairs of A's events arrived in the other order than they were accepted (202 order), counted between neighbours. */
function inversions(accepted, arrivals) {
  const arrivedInAcceptanceOrder = [...accepted.keys()].filter((id) => arrivals.has(id)).map((id) => arrivals.get(id));
  let count = 0;
  for (let i = 1; i < arrivedInAcceptanceOrder.length; i++) if (arrivedInAcceptanceOrder[i] < arrivedInAcceptanceOrder[i - 1]) count++;
  return count;
}

async function main() {
  const config = loadConfig();
  const { secretKey, dns, receiver } = await prepareBench(config);
  const organizations = [
    { warm: `https://${RECEIVER_HOST}/w15-warm` },
    { ordered: { url: `https://${RECEIVER_HOST}/delay/${config.delayMs}/w15-a`, ordered: true } },
    { healthy: `https://${RECEIVER_HOST}/w15-b` },
  ];
  const service = await startService(config, secretKey, dns, receiver, { organizations });
  const [warm, a, b] = service.orgs;
  let alone;
  let beside;
  try {
    log(`warm-up: ${config.bRate} events/s to a fast receiver for ${config.warmup} s`);
    await offer(service, [warm], config.bRate, config.warmup);
    await sleep(1000);

    log(`B alone: ${config.bRate} events/s for ${config.seconds} s`);
    receiver.reset();
    let from = now();
    const bAlone = await offer(service, [b], config.bRate, config.seconds);
    let to = now();
    alone = latencies(bAlone.accepted, await arrivalsOf(receiver, bAlone.accepted), from, to);

    log(
      `W15: ${config.rate} events/s to A's ordered webhook (answers after ${config.delayMs} ms) and ${config.bRate}/s to B, for ${config.seconds} s`,
    );
    receiver.reset();
    const machine = machineTicks();
    from = now();
    const [ordered, healthy] = await Promise.all([
      offer(service, [a], config.rate, config.seconds),
      offer(service, [b], config.bRate, config.seconds),
    ]);
    to = now();
    const { busy, total } = machineTicks();
    const arrivals = await arrivalsOf(receiver, healthy.accepted);
    const aArrived = latencies(ordered.accepted, arrivals, from, to);
    beside = {
      a: {
        ...aArrived,
        perSecond: aArrived.inWindow / ((to - from) / 1000),
        inversions: inversions(ordered.accepted, arrivals),
        accepted: ordered.accepted.size,
      },
      b: latencies(healthy.accepted, arrivals, from, to),
      failures: bAlone.failures + ordered.failures + healthy.failures,
      machinePercent: (100 * cpus().length * (busy - machine.busy)) / (total - machine.total),
    };
    await service.deleteWebhook(a, 'ordered');
  } finally {
    await service.stop();
  }

  const bound = 1000 / config.delayMs;
  const aloneP99 = percentile(alone.sorted, 99);
  const besideP99 = percentile(beside.b.sorted, 99);
  out(`## Ordered delivery (W15): one ordered webhook answering after ${config.delayMs} ms, beside a healthy organization`);
  out();
  out(
    '| | offered events/s | delivered/s while offered | share of 1/latency | arrived | order inversions | B 202→arrival p50 ms | B p99 ms | B p99 target |',
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---|');
  out(`| B alone | ${config.bRate} | | | ${alone.arrived} | | ${fixed(percentile(alone.sorted, 50), 1)} | ${fixed(aloneP99, 1)} | |`);
  out(
    `| W15 A ordered, B beside | ${config.rate} + ${config.bRate} | ${fixed(beside.a.perSecond, 1)} | ${fixed(beside.a.perSecond / bound, 2)} of ${fixed(bound, 0)}/s | ${beside.a.arrived}/${beside.a.accepted} (A, the rest cancelled) | ${beside.a.inversions} | ${fixed(percentile(beside.b.sorted, 50), 1)} | ${fixed(besideP99, 1)} | ${besideP99 <= p99Bound(aloneP99) ? 'met' : 'MISSED'} (≤ ${fixed(p99Bound(aloneP99), 0)} ms) |`,
  );
  out();
  out(
    `The bound of one attempt at a time is 1/latency = ${fixed(bound, 0)}/s; each attempt also waits for its record and for the next claim of the head (one per poll cycle of the dispatcher). Machine CPU over W15: ${fixed(beside.machinePercent, 0)} % of one core (${100 * cpus().length} = all cores busy).`,
  );
  out(`ratio W15 ${fixed(beside.a.perSecond / bound, 3)}`);
  out();
  if (beside.failures > 0 || beside.a.inversions > 0) process.exitCode = 1;
}

await runBench(main);
