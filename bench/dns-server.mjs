// A tiny DNS server on loopback (UDP) for the benchmark: the service resolves every webhook
// host through DNS_SERVERS (docs/api.md 5.1, rule 6), and the bench must not depend on the real
// Internet or on the machine's resolvers. It answers A and AAAA with one public address
// (docs/api.md 5.2) for each name of ZONE and of STALL_ZONE, and NXDOMAIN for every other name.
//
//   node bench/dns-server.mjs   prints "127.0.0.1:<port>" (for DNS_SERVERS) on stdout, then
//                               serves until SIGTERM/SIGINT; when its stdin is a pipe (as
//                               harness.mjs starts it), also until that pipe closes, so it never
//                               outlives the bench, even one killed with SIGKILL
//
// Control, one line at a time on stdin (isolation.mjs's DNS stall, W11):
//   stall    from now on, queries for names of STALL_ZONE get no answer at all (a name server
//            that has gone away: the service's lookups run into DNS_TIMEOUT_MS); other names
//            are answered as before
//   resume   they are answered again
//   count    prints {"stalled": n} on stdout: the queries left unanswered since the start
//
// run.mjs runs it as a child process rather than in its own event loop, which is busy
// driving autocannon during the write workloads: answers would wait behind the load
// generator and the service's DNS latency would be the bench's, not its own.
import { fstatSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import dns2 from 'dns2';

const { Packet } = dns2;

/** RFC 1035 response code: no such name. */
const NXDOMAIN = 3;

// Public by docs/api.md 5.2 (outside every special-purpose range); nothing ever connects to them.
const PUBLIC_A = '93.184.216.34';
const PUBLIC_AAAA = '2606:2800:220:1:248:1893:25c8:1946';

/** The host names of the URLs run.mjs sends (seed, W4, W5), and delivery.mjs's receiver (W6, W7). */
export const ZONE = ['hooks.acme-example.com', 'events.acme-example.com', 'alt.acme-example.com', 'receiver.example.com'];

/** Every name under this suffix resolves like ZONE's, until `stall` (isolation.mjs, W11). */
export const STALL_ZONE = '.stall.example.com';

/**
 * Starts the server on 127.0.0.1 (a free port); resolves to `{ address, close, stall(on),
 * stalled() }`: `stall(true)` leaves the queries for STALL_ZONE's names unanswered, `stalled()`
 * counts those left so.
 */
export async function startDnsServer(names = ZONE) {
  const known = new Set(names.map((name) => name.toLowerCase()));
  let stalling = false;
  let stalled = 0;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const [question] = request.questions;
      const response = Packet.createResponseFromRequest(request);
      const name = question.name.toLowerCase().replace(/\.$/, '');
      const inStallZone = name.endsWith(STALL_ZONE) && name.length > STALL_ZONE.length;
      if (inStallZone && stalling) {
        stalled++; // no answer at all, not even SERVFAIL: the resolver waits for its timeout
        return;
      }
      if (!known.has(name) && !inStallZone) {
        response.header.rcode = NXDOMAIN;
      } else if (question.type === Packet.TYPE.A || question.type === Packet.TYPE.AAAA) {
        const type = question.type === Packet.TYPE.A ? 'A' : 'AAAA';
        response.answers.push({
          name: question.name,
          type: Packet.TYPE[type],
          class: Packet.CLASS.IN,
          ttl: 60,
          address: type === 'A' ? PUBLIC_A : PUBLIC_AAAA,
        });
      }
      // Any other type of a known name: an empty answer ("no data").
      send(response);
    },
  });
  const { udp } = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return {
    address: `127.0.0.1:${udp.port}`,
    close: () => server.close(),
    stall: (on) => (stalling = on),
    stalled: () => stalled,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dns = await startDnsServer();
  const stop = () => dns.close().finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  // Node's spawn gives the child a socket pair for a 'pipe', not a FIFO: either is the parent's end.
  const stdin = fstatSync(0);
  if (stdin.isFIFO() || stdin.isSocket()) {
    let buffered = '';
    process.stdin.setEncoding('utf8').on('end', stop).on('error', stop);
    process.stdin.on('data', (chunk) => {
      const lines = (buffered + chunk).split('\n');
      buffered = lines.pop();
      for (const line of lines.map((l) => l.trim())) {
        if (line === 'stall') dns.stall(true);
        if (line === 'resume') dns.stall(false);
        if (line === 'count') process.stdout.write(`${JSON.stringify({ stalled: dns.stalled() })}\n`);
      }
    });
  }
  process.stdout.write(`${dns.address}\n`);
}
