// The receiving end of the delivery benchmarks (delivery.mjs: W7; throughput.mjs: W10;
// isolation.mjs: W8, W9, W11; burst.mjs: W12), in its own process so that it never waits behind
// the load generator: an HTTPS receiver on loopback with the tests' certificate (*.example.com)
// and an HTTP CONNECT proxy that maps the public address the bench DNS server answers to it, as
// the delivery tests do. It records when each webhook-id arrived.
//
// Paths and ports of the public address:
//   /slow/…             answered after SLOW_MS (W8); not recorded as an arrival
//   /delay/<ms>/…       recorded as an arrival when the request has been read, then answered
//                       after <ms> (W10, W11's backlog): a receiver that is slow but healthy.
//                       The arrival is when the request arrived, not when it was answered, so
//                       202→arrival measures the service's queueing, not the receiver's 250 ms
//   /bulk/…             answered at once and only counted (bench/recovery.mjs's recovered
//                       backlog: its arrivals would swamp the others')
//   /oauth/token        an OAuth 2.0 token endpoint (W14, docs/api.md 10.16): a new bearer token
//                       for BENCH_W14_EXPIRES_IN seconds (default 60) to every request, counted
//   /oauth/…            a receiver behind that token: recorded and answered 204 when the request
//                       carries a token it gave out, else 401 (counted)
//   anything else       recorded and answered 204 at once
//   port 8443           a blackhole: TCP accepted, never a byte back (W9)
//   port 8444           refused: the proxy's upstream is a closed local port, so the CONNECT
//                       gets 502 as from an egress proxy whose upstream refused (W11)
//
// Prints {"proxyUrl","receiverPort"} on stdout; answers IPC messages:
//   {cmd:'arrivals'} -> {arrivals: [[webhook-id, epoch ms], ...]}   {cmd:'reset'}
//   {cmd:'distinct'} -> {distinct, lastAt}: distinct (webhook-id, path) pairs that arrived and the
//                       time of the last new one (W12: one event goes to many webhooks, one id)
//   {cmd:'bad'} -> {slowRequests, blackholeConnections, refusedConnections, delayedRequests,
//                   delayedPeakInFlight, bulkRequests}: what the bad and the delayed receivers saw since the last reset
//   {cmd:'oauth'} -> {tokenRequests, unauthorized}: since the receiver started (W14)
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const TLS = join(fileURLToPath(new URL('..', import.meta.url)), 'test', 'support', 'tls');
/** bench/dns-server.mjs answers this for every name of its zone. */
const PUBLIC_A = '93.184.216.34';
const BLACKHOLE_PORT = 8443;
const REFUSED_PORT = 8444;
const SLOW_MS = 10_000;
const DELAY = /^\/delay\/(\d{1,6})\//;
const TOKEN_SECONDS = Number(process.env.BENCH_W14_EXPIRES_IN ?? 60);

const now = () => performance.timeOrigin + performance.now();
let arrivals = [];
let distinct = new Set();
let lastAt = 0;
let slowRequests = 0;
let blackholeConnections = 0;
let bulkRequests = 0;
let refusedConnections = 0;
let delayedRequests = 0;
let delayedInFlight = 0;
let delayedPeakInFlight = 0;
let tokenRequests = 0;
let unauthorized = 0;
const issued = new Set();

function arrived(req) {
  const id = req.headers['webhook-id'];
  const at = now();
  arrivals.push([id, at]);
  const key = `${id} ${req.url}`;
  if (!distinct.has(key)) {
    distinct.add(key);
    lastAt = at;
  }
}

const receiver = https.createServer(
  { key: readFileSync(join(TLS, 'receiver.key')), cert: readFileSync(join(TLS, 'receiver.pem')) },
  (req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url.startsWith('/bulk/')) {
        bulkRequests++;
        res.writeHead(204).end();
        return;
      }
      if (req.url === '/oauth/token') {
        const token = `w14-${++tokenRequests}-${Math.random().toString(36).slice(2)}`;
        issued.add(token);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: TOKEN_SECONDS }));
        return;
      }
      if (req.url.startsWith('/oauth/') && !issued.has(/^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1])) {
        unauthorized++;
        res.writeHead(401).end();
        return;
      }
      if (req.url.startsWith('/slow/')) {
        slowRequests++;
        setTimeout(() => res.writeHead(204).end(), SLOW_MS);
        return;
      }
      arrived(req);
      const delay = DELAY.exec(req.url);
      if (delay === null) return res.writeHead(204).end();
      delayedRequests++;
      delayedPeakInFlight = Math.max(delayedPeakInFlight, ++delayedInFlight);
      setTimeout(() => {
        delayedInFlight--;
        res.writeHead(204).end();
      }, Number(delay[1]));
    });
  },
);
receiver.keepAliveTimeout = 60_000;
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverPort = receiver.address().port;

// Accepts connections and never answers: a TLS handshake through it waits until the client gives up.
const held = new Set();
const blackhole = net.createServer((socket) => {
  blackholeConnections++;
  held.add(socket);
  socket.on('error', () => undefined);
  socket.on('close', () => held.delete(socket));
});
await new Promise((resolve) => blackhole.listen(0, '127.0.0.1', resolve));

// A port nothing listens on (taken, then released): every connection to it is refused.
const closed = net.createServer();
await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
const closedPort = closed.address().port;
await new Promise((resolve) => closed.close(resolve));

const upstreams = {
  [`${PUBLIC_A}:443`]: receiverPort,
  [`${PUBLIC_A}:${BLACKHOLE_PORT}`]: blackhole.address().port,
  [`${PUBLIC_A}:${REFUSED_PORT}`]: closedPort,
};
const proxy = http.createServer((_req, res) => res.writeHead(405).end());
proxy.on('connect', (req, client, head) => {
  const port = upstreams[req.url];
  if (port === undefined) return client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  if (port === closedPort) refusedConnections++;
  let established = false;
  const upstream = net.connect(port, '127.0.0.1', () => {
    established = true;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  // Upstream refused before the tunnel was up: 502, as an egress proxy answers; after, the tunnel just ends.
  upstream.on('error', () => (established ? client.destroy() : client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')));
  client.on('error', () => upstream.destroy());
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));

process.on('message', (message) => {
  if (message.cmd === 'arrivals') process.send({ arrivals });
  if (message.cmd === 'distinct') process.send({ distinct: distinct.size, lastAt });
  if (message.cmd === 'bad') {
    process.send({ slowRequests, blackholeConnections, refusedConnections, delayedRequests, delayedPeakInFlight, bulkRequests });
  }
  if (message.cmd === 'oauth') process.send({ tokenRequests, unauthorized });
  if (message.cmd === 'reset') {
    arrivals = [];
    distinct = new Set();
    lastAt = 0;
    slowRequests = 0;
    blackholeConnections = 0;
    refusedConnections = 0;
    delayedRequests = 0;
    delayedPeakInFlight = delayedInFlight; // requests still held count from here
    bulkRequests = 0;
  }
});
process.on('disconnect', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ proxyUrl: `http://127.0.0.1:${proxy.address().port}`, receiverPort })}\n`);
