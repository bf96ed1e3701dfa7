// The isolation benchmark of platform-api (`npm run bench` runs it last; see bench/README.md):
// one customer's bad endpoint must not slow anyone else's (docs/api.md 10.10).
//
//   alone  organization B (one healthy webhook) gets 50 events/s for BENCH_ISOLATION_SECONDS
//   W8     the same, beside organization A whose webhook answers after 10 s, also at 50/s
//   W9     the same, beside organization A whose webhook is a blackhole (TCP accepted, never a
//          byte back: the TLS handshake waits until DELIVERY_TIMEOUT_MS)
//
// each with one instance, then with two on the same database (events posted to them in turn),
// with the defaults (DELIVERY_CONCURRENCY 32, DELIVERY_TIMEOUT_MS 15 000, 4 in flight per
// webhook). For B: the 202→arrival p50 and p99 and deliveries per second while offered; the
// targets: p99 within 2x of B alone, at least 0.95 of the offered rate delivered. For A: what
// its receiver saw (requests, or connections), and what the queue holds of A's deliveries at
// the end (attempted, held back by the breaker, pending).
//
// Environment (defaults in brackets): BENCH_DATABASE_URL [mysql://root@127.0.0.1:3306],
// BENCH_PORT [3000] (and the next port for the second instance), BENCH_ISOLATION_SECONDS [20],
// BENCH_ISOLATION_RATE [50] (events per second to each organization).
import { randomBytes } from 'node:crypto';
import {
  fixed,
  intFromEnv,
  log,
  out,
  parseServerUrl,
  requireDist,
  requirePortFree,
  runBench,
  secondsFromEnv,
  startDns,
} from './harness.mjs';
import { arrivalsOf, latencies, now, offer, percentile, RECEIVER_HOST, sleep, startReceiver, startService } from './delivery-harness.mjs';

function loadConfig() {
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    port: intFromEnv('BENCH_PORT', 3000, 1),
    seconds: secondsFromEnv('BENCH_ISOLATION_SECONDS', 20),
    rate: intFromEnv('BENCH_ISOLATION_RATE', 50, 1),
  };
}

const ORGANIZATIONS = [
  { healthy: `https://${RECEIVER_HOST}/b` },
  { slow: `https://${RECEIVER_HOST}/slow/a` },
  { blackhole: `https://${RECEIVER_HOST}:8443/a` },
];

/** B's events for the phase, with A's beside them when `bad` names A's organization. */
async function phase(config, service, receiver, name, bad) {
  const [b] = service.orgs;
  receiver.reset();
  log(`${name} (${service.servers.length} instance(s)): ${config.rate} events/s to B${bad ? ' and to A' : ''} for ${config.seconds} s`);
  const from = now();
  const [healthy] = await Promise.all([
    offer(service, [b], config.rate, config.seconds),
    bad ? offer(service, [bad], config.rate, config.seconds) : undefined,
  ]);
  const to = now();
  const arrived = latencies(healthy.accepted, await arrivalsOf(receiver, healthy.accepted), from, to);
  const result = {
    name,
    instances: service.servers.length,
    accepted: healthy.accepted.size,
    arrived: arrived.arrived,
    failures: healthy.failures,
    deliveredPerSecond: arrived.inWindow / ((to - from) / 1000),
    p50: percentile(arrived.sorted, 50),
    p99: percentile(arrived.sorted, 99),
    bad: bad ? { seen: await receiver.bad(), queue: await badQueue(service, bad) } : undefined,
  };
  log(`${name}: B ${fixed(result.deliveredPerSecond, 1)}/s delivered, p50 ${fixed(result.p50, 1)} ms, p99 ${fixed(result.p99, 1)} ms`);
  return result;
}

/** A's deliveries at the end of its phase: attempted, held back (pending, never attempted), pending; and its breaker. */
async function badQueue(service, org) {
  const [row] = await service.query(
    `SELECT SUM(d.attempts > 0) AS attempted, SUM(d.state = 'pending' AND d.attempts = 0) AS waiting, SUM(d.state = 'pending') AS pending,
            MAX(h.breaker_open_until IS NOT NULL) AS breakerOpen, MAX(h.breaker_failures) AS breakerFailures
       FROM deliveries d LEFT JOIN webhook_health h ON h.webhook_id = d.webhook_id WHERE d.organization_id = ?`,
    [org.id],
  );
  return Object.fromEntries(Object.entries(row).map(([key, value]) => [key, Number(value ?? 0)]));
}

async function runWith(config, secretKey, dns, receiver, instances) {
  const service = await startService(config, secretKey, dns, receiver, { organizations: ORGANIZATIONS, instances });
  const [, slow, blackhole] = service.orgs;
  try {
    log(`warm-up (${instances} instance(s)): B for 3 s`);
    await offer(service, [service.orgs[0]], config.rate, 3);
    await sleep(1000);
    const alone = await phase(config, service, receiver, 'B alone', undefined);
    const w8 = await phase(config, service, receiver, 'W8 beside a 10 s receiver', slow);
    // A's backlog is cancelled between the phases, so that each measures one bad receiver.
    await service.deleteWebhook(slow, 'slow');
    const w9 = await phase(config, service, receiver, 'W9 beside a blackhole', blackhole);
    return [alone, w8, w9];
  } finally {
    await service.stop();
  }
}

function report(results) {
  out('## Isolation (W8, W9): organization B beside a bad receiver of organization A');
  out();
  out(
    '| instances | workload | B accepted | B arrived | B delivered/s | B p50 ms | B p99 ms | p99 / alone | A receiver saw | A at the end |',
  );
  out('|---:|---|---:|---:|---:|---:|---:|---:|---|---|');
  for (const group of results) {
    const alone = group[0];
    for (const r of group) {
      const seen =
        r.bad === undefined
          ? ''
          : r.name.startsWith('W8')
            ? `${r.bad.seen.slowRequests} requests`
            : `${r.bad.seen.blackholeConnections} connections`;
      const queue =
        r.bad === undefined
          ? ''
          : `${r.bad.queue.attempted} attempted, ${r.bad.queue.waiting} never attempted, ${r.bad.queue.pending} pending; breaker ${r.bad.queue.breakerOpen ? 'open' : 'closed'} (${r.bad.queue.breakerFailures} failures)`;
      out(
        `| ${r.instances} | ${r.name} | ${r.accepted} | ${r.arrived} | ${fixed(r.deliveredPerSecond, 1)} | ${fixed(r.p50, 1)} | ${fixed(r.p99, 1)} | ${r === alone ? '' : fixed(r.p99 / alone.p99, 2)} | ${seen} | ${queue} |`,
      );
    }
  }
  out();
}

async function main() {
  const config = loadConfig();
  requireDist();
  await requirePortFree(config.port);
  await requirePortFree(config.port + 1);
  const secretKey = randomBytes(32).toString('base64');
  const dns = await startDns();
  const receiver = await startReceiver();
  const results = [];
  for (const instances of [1, 2]) results.push(await runWith(config, secretKey, dns, receiver, instances));
  report(results);
}

await runBench(main);
