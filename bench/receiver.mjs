// The receiving end of the delivery benchmarks (delivery.mjs: W7; isolation.mjs: W8, W9), in its
// own process so that it never waits behind the load generator: an HTTPS receiver on loopback
// with the tests' certificate (*.example.com) and an HTTP CONNECT proxy that maps the public
// address the bench DNS server answers to it, as the delivery tests do. It records when each
// webhook-id arrived. Two bad receivers for W8 and W9: requests under /slow/ are answered after
// SLOW_MS, and port 8443 of the public address is a blackhole (TCP accepted, never a byte back).
// Requests under /bulk/ (W10's recovered backlog, bench/recovery.mjs) are answered at once and
// only counted: their arrivals would swamp the others'.
//
// Prints {"proxyUrl","receiverPort"} on stdout; answers IPC messages:
//   {cmd:'arrivals'} -> {arrivals: [[webhook-id, epoch ms], ...]}   {cmd:'reset'}
//   {cmd:'bad'} -> {slowRequests, blackholeConnections, bulkRequests}: what the other receivers saw since the last reset
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
const SLOW_MS = 10_000;

const now = () => performance.timeOrigin + performance.now();
let arrivals = [];
let slowRequests = 0;
let blackholeConnections = 0;
let bulkRequests = 0;

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
      if (req.url.startsWith('/slow/')) {
        slowRequests++;
        setTimeout(() => res.writeHead(204).end(), SLOW_MS);
        return;
      }
      arrivals.push([req.headers['webhook-id'], now()]);
      res.writeHead(204).end();
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

const upstreams = { [`${PUBLIC_A}:443`]: receiverPort, [`${PUBLIC_A}:${BLACKHOLE_PORT}`]: blackhole.address().port };
const proxy = http.createServer((_req, res) => res.writeHead(405).end());
proxy.on('connect', (req, client, head) => {
  const port = upstreams[req.url];
  if (port === undefined) return client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  const upstream = net.connect(port, '127.0.0.1', () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => client.destroy());
  client.on('error', () => upstream.destroy());
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));

process.on('message', (message) => {
  if (message.cmd === 'arrivals') process.send({ arrivals });
  if (message.cmd === 'bad') process.send({ slowRequests, blackholeConnections, bulkRequests });
  if (message.cmd === 'reset') {
    arrivals = [];
    slowRequests = 0;
    blackholeConnections = 0;
    bulkRequests = 0;
  }
});
process.on('disconnect', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ proxyUrl: `http://127.0.0.1:${proxy.address().port}`, receiverPort })}\n`);
