// The burst benchmark of platform-api (`npm run bench` runs it last; see bench/README.md): no burst
// of events of any size POST /api/events allows, to any number of webhooks, makes an instance run
// out of memory with the production flags (docs/api.md 10.10, "Memory").
//
//   W12  one organization with BENCH_W12_WEBHOOKS (100) webhooks at the fast receiver; then N
//        concurrent POST /api/events, each with a string of BENCH_W12_DATA_BYTES (250 000)
//        characters in `data` (the whole body under the 256 KiB limit), for each N of
//        BENCH_W12_EVENTS (8, then 80): 100 × N deliveries of about 250 KB each. Per burst:
//        whether every POST answered 202, whether the server is still up afterwards (its process
//        alive and GET /health 200), how many deliveries arrived within BENCH_W12_DEADLINE (60 s)
//        of the burst, the time until the last of them arrived, and the server's RSS: idle
//        before the burst, the highest VmRSS sampled every 100 ms, and VmHWM (the exact peak
//        over the process's life).
//
// Each burst gets a service of its own (a fresh database, 100 webhooks, one server with the
// production flags of package.json's config.nodeFlags, as every bench server runs, and the
// defaults: DELIVERY_BUFFER_MB 32): a fresh process's VmHWM is then that burst's peak, and the
// second burst does not start behind the first's deliveries, nor on a server the first one
// crashed. Nothing warms it up: a burst on an instance that has just started is the worse case.
// A delivery is one (webhook-id, path) pair at the receiver: every webhook has its own path, and
// the webhook-id is the event's, the same for its 100 deliveries.
//
// Environment (defaults in brackets): BENCH_DATABASE_URL [mysql://root@127.0.0.1:3306],
// BENCH_PORT [3000], BENCH_W12_WEBHOOKS [100], BENCH_W12_EVENTS [8,80] (events per burst, one
// burst each), BENCH_W12_DATA_BYTES [250000], BENCH_W12_DEADLINE [60] (seconds).
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  BenchError,
  fixed,
  intFromEnv,
  log,
  mb,
  NODE_FLAGS,
  out,
  parseServerUrl,
  procStatusKb,
  request,
  runBench,
  sampleRss,
  secondsFromEnv,
} from './harness.mjs';
import { prepareBench, RECEIVER_HOST, sleep, startService } from './delivery-harness.mjs';

/** docs/api.md 10.1: POST /api/events takes at most 256 KiB. */
const BODY_LIMIT = 256 * 1024;

function loadConfig() {
  const events = (process.env.BENCH_W12_EVENTS || '8,80').split(',').map((n) => intFromEnv('BENCH_W12_EVENTS', 8, 1, n.trim()));
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    port: intFromEnv('BENCH_PORT', 3000, 1),
    webhooks: intFromEnv('BENCH_W12_WEBHOOKS', 100, 1),
    events,
    dataBytes: intFromEnv('BENCH_W12_DATA_BYTES', 250_000, 1),
    deadline: secondsFromEnv('BENCH_W12_DEADLINE', 60),
  };
}

/** One event's body: random base64 (incompressible, like an encrypted or binary payload), distinct per event. */
function eventBody(org, n, bytes) {
  const blob = randomBytes(Math.ceil((bytes * 3) / 4))
    .toString('base64')
    .slice(0, bytes);
  return { type: 'transaction.created', organization: org.id, data: { n, blob } };
}

/** Is the server up: its process alive and /health 200. */
const alive = (server) => server.child.exitCode === null && server.child.signalCode === null;

async function upOrWhy(server) {
  if (!alive(server)) {
    const oom = /heap out of memory|Allocation failed/i.test(server.stderr()) ? ', out of memory' : '';
    return `down (exited ${server.child.exitCode ?? server.child.signalCode}${oom})`;
  }
  const status = await request('GET', `http://127.0.0.1:${server.port}/health`).then(
    (r) => r.status,
    (error) => error.code ?? error.message,
  );
  return status === 200 ? 'up' : `health ${status}`;
}

async function burst(config, secretKey, dns, receiver, count) {
  const hooks = Object.fromEntries(
    Array.from({ length: config.webhooks }, (_, i) => [`w12-${i}`, `https://${RECEIVER_HOST}/w12/${String(i).padStart(3, '0')}`]),
  );
  log(`W12: ${config.webhooks} webhooks, one server with ${NODE_FLAGS.join(' ')}`);
  const service = await startService(config, secretKey, dns, receiver, {
    organizations: [hooks],
    env: { WEBHOOKS_PER_ORG_MAX: String(Math.max(100, config.webhooks)) },
  });
  const [server] = service.servers;
  const [org] = service.orgs;
  try {
    const bodies = Array.from({ length: count }, (_, n) => eventBody(org, n, config.dataBytes));
    const size = Buffer.byteLength(JSON.stringify(bodies[0]));
    if (size >= BODY_LIMIT)
      throw new BenchError(`W12: an event's body is ${size} bytes, over the ${BODY_LIMIT}-byte limit: lower BENCH_W12_DATA_BYTES`);
    const expected = count * config.webhooks;
    receiver.reset();
    const idleRssKb = procStatusKb(server.child.pid, 'VmRSS');
    const peakRss = sampleRss(server.child.pid);
    log(`W12: ${count} concurrent POST /api/events of ${size} bytes each, ${expected} deliveries`);
    const started = performance.timeOrigin + performance.now();
    // Each on its own connection (request() uses no agent), all at once: the burst.
    const answers = await Promise.all(
      bodies.map((body) =>
        request('POST', `${service.apis[0]}/events`, { headers: service.headers, body }).then(
          (r) => r.status,
          (error) => error.code ?? error.message,
        ),
      ),
    );
    const ingestMs = performance.timeOrigin + performance.now() - started;
    const failures = answers.filter((status) => status !== 202);
    if (failures.length > 0) log(`W12: ${failures.length} of ${count} POSTs did not answer 202: ${[...new Set(failures)].join(', ')}`);
    // Until every delivery arrived, the deadline, or the server is gone.
    const deadline = started + config.deadline * 1000;
    let seen = await receiver.distinct();
    let lastLogged = 0;
    while (seen.distinct < expected && performance.timeOrigin + performance.now() < deadline && alive(server)) {
      await sleep(250);
      seen = await receiver.distinct();
      if (seen.distinct - lastLogged >= expected / 10) log(`W12: ${(lastLogged = seen.distinct)} of ${expected} arrived`);
    }
    const result = {
      count,
      size,
      expected,
      accepted: answers.length - failures.length,
      failures: failures.length,
      ingestMs,
      arrived: seen.distinct,
      allMs: seen.distinct >= expected ? seen.lastAt - started : NaN,
      up: await upOrWhy(server),
      idleRssKb,
      peakRssKb: peakRss(),
      hwmKb: procStatusKb(server.child.pid, 'VmHWM'), // 0 when the process is gone
    };
    log(`W12 ${count} events: ${result.arrived}/${expected} arrived, server ${result.up}, VmHWM ${fixed(mb(result.hwmKb), 1)} MB`);
    return result;
  } finally {
    await service.stop();
  }
}

async function main() {
  const config = loadConfig();
  const { secretKey, dns, receiver } = await prepareBench(config);
  const results = [];
  for (const count of config.events) results.push(await burst(config, secretKey, dns, receiver, count));

  out(`## A burst of large events (W12): one organization, ${config.webhooks} webhooks, server flags \`${NODE_FLAGS.join(' ')}\``);
  out();
  out(
    `| concurrent events (bytes each) | accepted (202) | server after | deliveries arrived within ${config.deadline} s | time to deliver all s | ingest of the burst ms | idle RSS MB | peak sampled VmRSS MB | VmHWM MB |`,
  );
  out('|---|---:|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    out(
      `| ${r.count} (${r.size}) | ${r.accepted}/${r.count} | ${r.up} | ${r.arrived}/${r.expected} | ${fixed(r.allMs / 1000, 1)} | ${fixed(r.ingestMs, 0)} | ${fixed(mb(r.idleRssKb), 1)} | ${fixed(mb(r.peakRssKb), 1)} | ${r.hwmKb > 0 ? fixed(mb(r.hwmKb), 1) : '-'} |`,
    );
  }
  out();
  out(
    'Target (SPEC 10.10): the server up after each burst, every delivery made, RSS within what the flags allow. "Time to deliver all": from the first POST to the last arrival ("-": not all within the deadline). VmHWM: the peak over the process\'s life (start-up included; "-" when the process is gone).',
  );
  out();
  // Every POST /api/events must answer 202; a server that dies is reported above, not here.
  if (results.some((r) => r.failures > 0)) process.exitCode = 1;
}

await runBench(main);
