// The recovery benchmark of platform-api (`npm run bench` runs it after isolation.mjs; see
// bench/README.md): a recovery of a large backlog is answered at once and delays no one else
// (docs/api.md 10.14, 10.10).
//
//   alone  organization B (one healthy webhook) gets BENCH_ISOLATION_RATE events/s for
//          BENCH_ISOLATION_SECONDS
//   W13    the same, right after organization A recovers BENCH_RECOVERY_DELIVERIES failed
//          deliveries of its own webhook, whose receiver answers at once
//
// one instance, the defaults. For the recovery: the time to its 202 and its count. For B: the
// 202→arrival p50 and p99 and deliveries per second while offered (targets as W8: p99 within 2x
// of B alone, at least 0.95 of the offered rate). For A: the recovered deliveries its receiver got
// during the phase, and how many were still pending at its end.
//
// Environment (defaults in brackets): BENCH_DATABASE_URL [mysql://root@127.0.0.1:3306],
// BENCH_PORT [3000], BENCH_ISOLATION_SECONDS [20], BENCH_ISOLATION_RATE [50],
// BENCH_RECOVERY_DELIVERIES [100000].
import { BenchError, fixed, intFromEnv, log, out, parseServerUrl, request, runBench, secondsFromEnv } from './harness.mjs';
import { arrivalsOf, latencies, now, offer, percentile, prepareBench, RECEIVER_HOST, sleep, startService } from './delivery-harness.mjs';

function loadConfig() {
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    port: intFromEnv('BENCH_PORT', 3000, 1),
    seconds: secondsFromEnv('BENCH_ISOLATION_SECONDS', 20),
    rate: intFromEnv('BENCH_ISOLATION_RATE', 50, 1),
    deliveries: intFromEnv('BENCH_RECOVERY_DELIVERIES', 100_000, 1),
  };
}

const ORGANIZATIONS = [{ healthy: `https://${RECEIVER_HOST}/b` }, { bulk: `https://${RECEIVER_HOST}/bulk/a` }];

/** B's events for the phase; `before` runs first (A's recovery), its result kept. */
async function phase(config, service, receiver, name, before) {
  const [b] = service.orgs;
  receiver.reset();
  const recovery = before === undefined ? undefined : await before();
  log(`${name}: ${config.rate} events/s to B for ${config.seconds} s`);
  const from = now();
  const healthy = await offer(service, [b], config.rate, config.seconds);
  const to = now();
  const arrived = latencies(healthy.accepted, await arrivalsOf(receiver, healthy.accepted), from, to);
  const result = {
    name,
    accepted: healthy.accepted.size,
    arrived: arrived.arrived,
    deliveredPerSecond: arrived.inWindow / ((to - from) / 1000),
    p50: percentile(arrived.sorted, 50),
    p99: percentile(arrived.sorted, 99),
    recovery,
    bulk:
      recovery === undefined
        ? undefined
        : { sent: (await receiver.bad()).bulkRequests, pending: await pendingOf(service, service.orgs[1]) },
  };
  log(`${name}: B ${fixed(result.deliveredPerSecond, 1)}/s delivered, p50 ${fixed(result.p50, 1)} ms, p99 ${fixed(result.p99, 1)} ms`);
  return result;
}

async function pendingOf(service, org) {
  const [row] = await service.query("SELECT COUNT(*) AS pending FROM deliveries WHERE organization_id = ? AND state = 'pending'", [org.id]);
  return Number(row.pending);
}

/** A's backlog: one event, then `count` failed deliveries of it made an hour ago (as an outage would leave them). */
async function seedBacklog(service, org, count) {
  const sent = await request('POST', `${service.apis[0]}/events`, {
    headers: service.headers,
    body: { type: 'transaction.created', organization: org.id, data: { amount: 1 } },
  });
  if (sent.status !== 202) throw new BenchError(`POST /events answered ${sent.status}`);
  const [{ webhookId }] = await service.query('SELECT webhook_id AS webhookId FROM deliveries WHERE organization_id = ?', [org.id]);
  await service.query(
    `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, created_at)
     SELECT ?, ?, 'transaction.created', ?, 'failed', 8, UTC_TIMESTAMP(3) - INTERVAL 1 HOUR FROM seq_1_to_${count}`,
    [JSON.parse(sent.text).id, org.id, webhookId],
  );
  await service.query('ANALYZE TABLE deliveries');
}

async function recover(service, org) {
  const started = now();
  const res = await request('POST', `${service.apis[0]}/webhook/bulk/recover`, {
    headers: { Cookie: org.cookie },
    body: { since: new Date(Date.now() - 2 * 3600_000).toISOString() },
  });
  if (res.status !== 202) throw new BenchError(`POST …/recover answered ${res.status}: ${res.text}`);
  return { answeredMs: now() - started, deliveries: JSON.parse(res.text).deliveries };
}

function report([alone, w13]) {
  out('## Recovery (W13): organization B beside a recovery of organization A');
  out();
  out(
    '| workload | recovery 202 ms | recovered | B accepted | B arrived | B delivered/s | B p50 ms | B p99 ms | p99 / alone | A sent during it | A pending at its end |',
  );
  out('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of [alone, w13]) {
    out(
      `| ${r.name} | ${r.recovery ? fixed(r.recovery.answeredMs, 1) : ''} | ${r.recovery?.deliveries ?? ''} | ${r.accepted} | ${r.arrived} | ${fixed(r.deliveredPerSecond, 1)} | ${fixed(r.p50, 1)} | ${fixed(r.p99, 1)} | ${r === alone ? '' : fixed(r.p99 / alone.p99, 2)} | ${r.bulk?.sent ?? ''} | ${r.bulk?.pending ?? ''} |`,
    );
  }
  out();
}

async function main() {
  const config = loadConfig();
  const { secretKey, dns, receiver } = await prepareBench(config);
  const service = await startService(config, secretKey, dns, receiver, { organizations: ORGANIZATIONS });
  try {
    const [b, a] = service.orgs;
    log('warm-up: B for 3 s');
    await offer(service, [b], config.rate, 3);
    await seedBacklog(service, a, config.deliveries);
    await sleep(1000);
    const alone = await phase(config, service, receiver, 'B alone');
    const w13 = await phase(config, service, receiver, `W13 beside a recovery of ${config.deliveries}`, () => recover(service, a));
    report([alone, w13]);
  } finally {
    await service.stop();
  }
}

await runBench(main);
