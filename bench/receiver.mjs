// The receiving end of the delivery benchmark (delivery.mjs, W7), in its own process so that
// it never waits behind the load generator: an HTTPS receiver on loopback with the tests'
// certificate (*.example.com) and an HTTP CONNECT proxy that maps the public address the bench
// DNS server answers to it, as the delivery tests do. It records when each webhook-id arrived.
//
// Prints {"proxyUrl","receiverPort"} on stdout; answers IPC messages:
//   {cmd:'arrivals'} -> {arrivals: [[webhook-id, epoch ms], ...], non2xx}   {cmd:'reset'}
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

const now = () => performance.timeOrigin + performance.now();
let arrivals = [];

const receiver = https.createServer({ key: readFileSync(join(TLS, 'receiver.key')), cert: readFileSync(join(TLS, 'receiver.pem')) }, (req, res) => {
  req.resume();
  req.on('end', () => {
    arrivals.push([req.headers['webhook-id'], now()]);
    res.writeHead(204).end();
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverPort = receiver.address().port;

const proxy = http.createServer((_req, res) => res.writeHead(405).end());
proxy.on('connect', (req, client, head) => {
  if (req.url !== `${PUBLIC_A}:443`) return client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
  const upstream = net.connect(receiverPort, '127.0.0.1', () => {
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
  if (message.cmd === 'reset') arrivals = [];
});
process.on('disconnect', () => process.exit(0));
process.stdout.write(`${JSON.stringify({ proxyUrl: `http://127.0.0.1:${proxy.address().port}`, receiverPort })}\n`);
