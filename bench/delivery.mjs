// The delivery benchmark of platform-api (`npm run bench` runs it after run.mjs; see bench/README.md).
//
//   W6  POST /api/events to an organization with 3 webhooks, dispatch off in that instance
//       (DELIVERY_CONCURRENCY=0): rps, p50, p99 of the 202s (autocannon).
//   W7  one instance on MariaDB delivering to an HTTPS receiver through an HTTP CONNECT proxy
//       (bench/receiver.mjs, its own process) at fixed offered rates of events to one webhook:
//       deliveries per second that arrived while events were offered, whether every one
//       arrived (2xx), and the latency from the 202 to the arrival at the receiver, p50 and p99.
//   ceiling  the same receiver and proxy driven by a plain Node client that signs
//       (standardwebhooks) and posts with keep-alive (undici), as fast as it can: our sustained
//       rate as a fraction of it.
//
// Environment (defaults in brackets): BENCH_DATABASE_URL [mysql://root@127.0.0.1:3306],
// BENCH_PORT [3000], BENCH_DURATION [10] and BENCH_WARMUP [3] (seconds, W6 and the ceiling),
// BENCH_CONNECTIONS [32], BENCH_W7_RATES [250,500,1000,1500] (events per second),
// BENCH_W7_SECONDS [10] (per rate).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { Webhook } from 'standardwebhooks';
import { ProxyAgent } from 'undici';
import {
  API_PREFIX,
  atCleanup,
  BenchError,
  cleanUp,
  cli,
  createDatabase,
  expectStatus,
  fixed,
  intFromEnv,
  log,
  mb,
  out,
  parseServerUrl,
  requireDist,
  requirePortFree,
  ROOT,
  sampleRss,
  secondsFromEnv,
  serviceEnv,
  startDns,
  startServer,
  stop,
  waitForHealth,
} from './harness.mjs';

const RECEIVER_HOST = 'receiver.example.com';
const PUBLIC_A = '93.184.216.34';
const CA_FILE = join(ROOT, 'test', 'support', 'tls', 'ca.pem');
/** No limit may answer 429 during the load; the limiter still counts every request. */
const UNLIMITED = { RATE_LIMIT_PER_SESSION: '1000000000', RATE_LIMIT_PER_ORGANIZATION: '1000000000', RATE_LIMIT_PER_PLATFORM_KEY: '1000000000' };
const now = () => performance.timeOrigin + performance.now();

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
  };
}

/** bench/receiver.mjs as a child: its proxy URL, and a way to ask it what arrived. */
async function startReceiver() {
  const child = fork(join(ROOT, 'bench', 'receiver.mjs'), { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  atCleanup(() => child.kill('SIGTERM'));
  const { proxyUrl } = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) resolve(JSON.parse(text));
    });
    child.once('exit', (code) => reject(new BenchError(`bench/receiver.mjs exited (${code})`)));
  });
  const ask = (cmd) =>
    new Promise((resolve) => {
      child.once('message', resolve);
      child.send({ cmd });
    });
  return { proxyUrl, arrivals: async () => new Map((await ask('arrivals')).arrivals), reset: () => child.send({ cmd: 'reset' }) };
}

/** A fresh database with an organization, its owner's session, a platform key, and a server on it. */
async function serviceWith(config, secretKey, dns, extraEnv, webhooks) {
  const database = await createDatabase(config.mariadb);
  const env = serviceEnv(secretKey, database.url);
  const { id: org } = await cli(env, 'org', 'create', '--name', 'Acme');
  const { id: user } = await cli(env, 'user', 'create', '--email', 'owner@acme.test');
  await cli(env, 'member', 'add', '--org', String(org), '--user', String(user), '--role', 'owner');
  const { token: session } = await cli(env, 'session', 'create', '--user', String(user), '--org', String(org));
  const { token: key } = await cli(env, 'platform-key', 'create', '--name', 'bench');
  const server = startServer(serviceEnv(secretKey, database.url, { PORT: String(config.port), HOST: '127.0.0.1', DNS_SERVERS: dns, LOG_LEVEL: 'warn', ...UNLIMITED, ...extraEnv }));
  await waitForHealth(server);
  const api = `http://127.0.0.1:${config.port}${API_PREFIX}`;
  for (const name of webhooks) {
    await expectStatus(201, 'POST', `${api}/webhook/${name}`, { headers: { Cookie: `__Secure-auth.session_token=${session}` }, body: { url: `https://${RECEIVER_HOST}/${name}` } });
  }
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const event = (n) => JSON.stringify({ type: 'transaction.created', organization: org, data: { amount: n, currency: 'EUR' } });
  return { server, api, headers, event, stop: async () => (await stop(server.child), await database.drop()) };
}

async function w6(config, secretKey, dns) {
  const service = await serviceWith(config, secretKey, dns, { DELIVERY_CONCURRENCY: '0' }, ['hook-1', 'hook-2', 'hook-3']);
  try {
    const answer = JSON.parse(await expectStatus(202, 'POST', `${service.api}/events`, { headers: service.headers, body: JSON.parse(service.event(0)) }));
    if (answer.deliveries !== 3) throw new BenchError(`W6: an event made ${answer.deliveries} deliveries, expected 3`);
    const peakRss = sampleRss(service.server.child.pid);
    const run = (seconds) =>
      autocannon({
        url: `http://127.0.0.1:${config.port}`,
        connections: config.connections,
        duration: seconds,
        requests: [{ method: 'POST', path: `${API_PREFIX}/events`, headers: service.headers, body: service.event(1) }],
      });
    log(`W6 POST /events (3 webhooks, dispatch off): ${config.connections} connections, ${config.warmup} s warm-up + ${config.duration} s`);
    const warm = await run(config.warmup);
    const measured = await run(config.duration);
    return {
      rps: measured.requests.total / measured.duration,
      p50: measured.latency.p50,
      p99: measured.latency.p99,
      failures: warm.non2xx + warm.errors + measured.non2xx + measured.errors,
      peakRssKb: peakRss(),
    };
  } finally {
    await service.stop();
  }
}

/** Offers `rate` events per second for `seconds`; the 202 time of each accepted event id. */
async function offer(service, rate, seconds) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const accepted = new Map();
  let failures = 0;
  let inFlight = 0;
  let behind = 0;
  const started = performance.now();
  const total = rate * seconds;
  let sent = 0;
  const post = (n) =>
    new Promise((resolve) => {
      inFlight++;
      const req = http.request(`${service.api}/events`, { method: 'POST', agent, headers: service.headers }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          inFlight--;
          if (res.statusCode === 202) accepted.set(JSON.parse(text).id, now());
          else failures++;
          resolve();
        });
      });
      req.on('error', () => (inFlight--, failures++, resolve()));
      req.end(service.event(n));
    });
  const pending = [];
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; sent < due; sent++) {
      if (inFlight >= 512) behind++;
      pending.push(post(sent));
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.all(pending);
  agent.destroy();
  return { accepted, failures, behind, offeredSeconds: (performance.now() - started) / 1000 };
}

const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

async function w7(config, secretKey, dns, receiver) {
  const service = await serviceWith(config, secretKey, dns, { DELIVERY_PROXY_URL: receiver.proxyUrl, DELIVERY_CA_FILE: CA_FILE }, ['w7']);
  const peakRss = sampleRss(service.server.child.pid);
  const results = [];
  try {
    // Warm-up, thrown away: JIT, connection pools, the kept-alive tunnels.
    log(`W7 warm-up: ${config.rates[0]} events/s for ${config.warmup} s`);
    await offer(service, config.rates[0], config.warmup);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    for (const rate of config.rates) {
      receiver.reset();
      log(`W7 end to end: ${rate} events/s offered for ${config.w7Seconds} s`);
      const windowStart = now();
      const { accepted, failures, behind, offeredSeconds } = await offer(service, rate, config.w7Seconds);
      const windowEnd = now();
      // Drain: wait up to 10 s for the rest to arrive.
      let arrivals = await receiver.arrivals();
      for (let waited = 0; waited < 10_000 && [...accepted.keys()].some((id) => !arrivals.has(id)); waited += 250) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        arrivals = await receiver.arrivals();
      }
      const latencies = [...accepted].filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id) - at).sort((a, b) => a - b);
      const inWindow = [...arrivals.values()].filter((at) => at >= windowStart && at <= windowEnd).length;
      results.push({
        rate,
        accepted: accepted.size,
        arrived: latencies.length,
        failures,
        behind,
        deliveredPerSecond: inWindow / ((windowEnd - windowStart) / 1000),
        offeredPerSecond: accepted.size / offeredSeconds,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
      });
      const r = results.at(-1);
      log(`W7 ${rate}/s: ${fixed(r.deliveredPerSecond, 0)} deliveries/s, ${r.arrived}/${r.accepted} arrived, p50 ${fixed(r.p50, 1)} ms, p99 ${fixed(r.p99, 1)} ms`);
    }
  } finally {
    const peakRssKb = peakRss();
    await service.stop();
    results.peakRssKb = peakRssKb;
  }
  return results;
}

/** A plain client: sign and post through the same proxy to the same receiver, keep-alive, as fast as it goes. */
async function ceiling(config, receiver) {
  const dispatcher = new ProxyAgent({ uri: receiver.proxyUrl, requestTls: { servername: RECEIVER_HOST, ca: [readFileSync(CA_FILE, 'utf8')] } });
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
          headers: { host: RECEIVER_HOST, 'content-type': 'application/json', 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at / 1000)), 'webhook-signature': signer.sign(id, at, body) },
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

function report(w6Result, w7Results, ceilingResult) {
  out('## Delivery (W6, W7)');
  out();
  out('| workload | rps | p50 ms | p99 ms | failures | peak RSS MB |');
  out('|---|---:|---:|---:|---:|---:|');
  out(`| W6 POST /events, 3 webhooks, dispatch off | ${fixed(w6Result.rps, 0)} | ${fixed(w6Result.p50, 2)} | ${fixed(w6Result.p99, 2)} | ${w6Result.failures} | ${fixed(mb(w6Result.peakRssKb), 1)} |`);
  out();
  out('| W7 offered events/s | accepted/s | delivered/s in the window | arrived | 202→arrival p50 ms | p99 ms | ingest failures |');
  out('|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of w7Results) {
    out(`| ${r.rate} | ${fixed(r.offeredPerSecond, 0)} | ${fixed(r.deliveredPerSecond, 0)} | ${r.arrived}/${r.accepted} | ${fixed(r.p50, 1)} | ${fixed(r.p99, 1)} | ${r.failures} |`);
  }
  const sustained = Math.max(0, ...w7Results.filter((r) => r.arrived === r.accepted && r.failures === 0 && r.deliveredPerSecond >= 0.95 * r.rate).map((r) => r.rate));
  out();
  out(`W7 sustained: ${sustained} deliveries/s (every one 2xx and delivered while offered); ceiling (plain client, same receiver and proxy): ${fixed(ceilingResult.rps, 0)}/s; ratio ${fixed(sustained / ceilingResult.rps, 2)}. W7 server peak RSS ${fixed(mb(w7Results.peakRssKb), 1)} MB.`);
  out();
}

async function main() {
  const config = loadConfig();
  requireDist();
  await requirePortFree(config.port);
  const secretKey = randomBytes(32).toString('base64');
  const dns = await startDns();
  const receiver = await startReceiver();
  const w6Result = await w6(config, secretKey, dns);
  const w7Results = await w7(config, secretKey, dns, receiver);
  const ceilingResult = await ceiling(config, receiver);
  report(w6Result, w7Results, ceilingResult);
  if (w6Result.failures > 0) process.exitCode = 1;
}

let status = 0;
try {
  await main();
} catch (error) {
  process.stderr.write(error instanceof BenchError ? `bench: ${error.message}\n` : `bench: ${error.stack ?? error}\n`);
  status = 1;
} finally {
  await cleanUp();
}
process.exit(status || process.exitCode || 0);
