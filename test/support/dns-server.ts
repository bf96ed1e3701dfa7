import dns2 from 'dns2';

const { Packet } = dns2;
type Resource = dns2.Packet.Resource;

/** RFC 1035 response codes (dns2 has them at runtime but not in its types). */
const RCODE = { SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
type Failure = keyof typeof RCODE | 'TIMEOUT';

/** How the test DNS server answers one name: addresses per type, a bare CNAME, or a failure. */
export interface ZoneEntry {
  A?: string[] | Failure;
  AAAA?: string[] | Failure;
  /** Answer every query with only this CNAME: a chain that ends nowhere. */
  CNAME?: string;
  /** Hold every answer for this long (a slow resolver that still answers). */
  delayMs?: number;
}

/** Names that are not in the zone answer NXDOMAIN. */
export type Zone = Record<string, ZoneEntry | Failure>;

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  readonly address: string;
  /** Every question asked so far, as `A name` or `AAAA name`. */
  readonly questions: string[];
  /** The UDP source port of each question, in the order of `questions` (a c-ares channel has one socket per server). */
  readonly sourcePorts: number[];
  set(name: string, entry: ZoneEntry | Failure): void;
  close(): Promise<void>;
}

type Answer = { addresses: string[] } | { cname: string } | Failure;

function answerFor(entry: ZoneEntry | Failure | undefined, type: 'A' | 'AAAA'): Answer {
  if (entry === undefined) return 'NXDOMAIN';
  if (typeof entry === 'string') return entry;
  if (entry.CNAME !== undefined) return { cname: entry.CNAME };
  const given = entry[type] ?? [];
  return typeof given === 'string' ? given : { addresses: given };
}

/**
 * dns2 encodes only hex IPv6 correctly (a dotted tail such as ::ffff:10.0.0.1 goes out wrong),
 * so AAAA answers are normalized by the WHATWG parser first.
 */
const wireForm = (type: 'A' | 'AAAA', address: string): string =>
  type === 'A' ? address : new URL(`http://[${address}]/`).hostname.slice(1, -1);

/** A real DNS server on loopback (UDP), answering from a zone the test controls. */
export async function startDnsServer(zone: Zone = {}): Promise<TestDnsServer> {
  const entries = new Map(Object.entries(zone).map(([name, entry]) => [name.toLowerCase(), entry]));
  const questions: string[] = [];
  const sourcePorts: number[] = [];
  const server = dns2.createServer({
    udp: true,
    handle: (request, send, client) => {
      const [question] = request.questions;
      const type = question.type === Packet.TYPE.AAAA ? 'AAAA' : 'A';
      const name = question.name.toLowerCase().replace(/\.$/, '');
      questions.push(`${type} ${name}`);
      sourcePorts.push((client as { port?: number }).port ?? 0);
      const entry = entries.get(name);
      const answer = answerFor(entry, type);
      if (answer === 'TIMEOUT') return;
      const response = Packet.createResponseFromRequest(request);
      const record = { name: question.name, class: Packet.CLASS.IN, ttl: 60 };
      if (typeof answer === 'string') {
        response.header.rcode = RCODE[answer];
      } else if ('cname' in answer) {
        response.answers.push({ ...record, type: Packet.TYPE.CNAME, domain: answer.cname } as unknown as Resource);
      } else {
        for (const address of answer.addresses) {
          response.answers.push({ ...record, type: Packet.TYPE[type], address: wireForm(type, address) } as unknown as Resource);
        }
      }
      const delayMs = typeof entry === 'object' ? (entry.delayMs ?? 0) : 0;
      // the server may have closed meanwhile: a late answer then goes nowhere
      if (delayMs > 0) setTimeout(() => send(response).catch(() => undefined), delayMs);
      else void send(response);
    },
  });
  const { udp } = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  return {
    address: `127.0.0.1:${udp!.port}`,
    questions,
    sourcePorts,
    set: (name, entry) => entries.set(name.toLowerCase(), entry),
    close: () => server.close(),
  };
}
