import ipaddr from 'ipaddr.js';
import { dialledAddress, IpAddress, parseIpAddress, parseIpRange } from '../common/ip-address';
import type { TrustedRange } from '../config/trusted-ranges';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const v4 = (cidr: string) => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);

/** docs/api.md 5.2: every IPv4 address outside these is public. */
export const IPV4_SPECIAL_PURPOSE = [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4',
  '240.0.0.0/4',
].map(v4);

/** docs/api.md 5.2: an IPv6 address is public only inside global unicast and outside these. */
const IPV6_GLOBAL_UNICAST = v6('2000::/3');
export const IPV6_SPECIAL_IN_GLOBAL = ['2001::/23', '2001:db8::/32', '3fff::/20'].map(v6);

/** IPv6 forms that carry an IPv4 address, judged by that address (bytes of the IPv4 part). */
const IPV6_EMBEDDING_IPV4: readonly [range: [IPv6, number], from: number][] = [
  [v6('::ffff:0:0/96'), 12], // IPv4-mapped: the low 32 bits
  [v6('64:ff9b::/96'), 12], // NAT64 well-known prefix: the low 32 bits
  [v6('2002::/16'), 2], // 6to4: bits 16-47
];

const isPublicV4 = (address: IPv4): boolean => !IPV4_SPECIAL_PURPOSE.some((range) => address.match(range));

function isPublicV6(address: IPv6): boolean {
  for (const [range, from] of IPV6_EMBEDDING_IPV4) {
    if (address.match(range)) {
      return isPublicV4(new ipaddr.IPv4(address.toByteArray().slice(from, from + 4)));
    }
  }
  return address.match(IPV6_GLOBAL_UNICAST) && !IPV6_SPECIAL_IN_GLOBAL.some((range) => address.match(range));
}

/**
 * Whether a canonical address (dotted-quad IPv4 as the WHATWG parser and resolvers print it,
 * or IPv6 without brackets) may be the target of a webhook. Anything that does not parse as
 * such is not public; the IPv4-compatible `::a.b.c.d` is an IPv6 address in ::/8 (parseIpAddress).
 */
export function isPublicAddress(address: string): boolean {
  let verdict = judged.get(address);
  if (verdict === undefined) {
    verdict = judgePublic(address);
    if (judged.size >= MAX_JUDGED) judged.clear();
    judged.set(address, verdict);
  }
  return verdict;
}

/**
 * The verdicts already reached, by address: every attempt judges the addresses its host
 * resolved to (docs/api.md 10.4), nearly always the same few, and parsing one with ipaddr.js
 * was 3 % of the dispatcher's CPU (docs/performance.md). A pure function of the string.
 */
const judged = new Map<string, boolean>();
const MAX_JUDGED = 4096;

function judgePublic(address: string): boolean {
  const parsed = parseIpAddress(address);
  if (parsed === undefined) return false;
  return parsed instanceof ipaddr.IPv4 ? isPublicV4(parsed) : isPublicV6(parsed);
}

/** A trusted range, parsed once, and its ports (absent: every port). */
interface Trusted {
  readonly range: [IpAddress, number];
  readonly ports?: ReadonlySet<number>;
}

/**
 * Which addresses, on which ports, a webhook may point to, at registration and at delivery alike
 * (docs/api.md 5.2, 10.4): public addresses on any port, and those inside the operator's
 * TRUSTED_CIDRS (receivers inside its own network) on the ports their entry names, or on any
 * when it names none. An address that is trusted but reached on another port is refused exactly
 * as a private one: the ports of a trusted host that are not receivers (its databases, this
 * service) stay out of reach, and the delivery log cannot be used to tell which are open.
 *
 * A range is matched against the address the socket dials (dialledAddress): an IPv4-mapped
 * `::ffff:a.b.c.d` against IPv4 ranges as a.b.c.d; the IPv4-compatible `::a.b.c.d`, NAT64 and 6to4
 * forms against IPv6 ranges only, never as the IPv4 address inside them (issue 26: `::10.0.0.5`
 * passed as 10.0.0.5 under a trusted 10/8 while the connection went to the IPv6 ::a00:5).
 */
export class AddressPolicy {
  private readonly trusted: readonly Trusted[];

  constructor(trustedRanges: readonly TrustedRange[] = []) {
    this.trusted = trustedRanges.map(({ cidr, ports }) => ({ range: rangeOf(cidr), ports: ports && new Set(ports) }));
  }

  /** `port`: the one the URL connects to (443 when it names none). */
  readonly allows = (address: string, port: number): boolean => this.isTrusted(address, port) || isPublicAddress(address);

  private isTrusted(address: string, port: number): boolean {
    if (this.trusted.length === 0) return false;
    const parsed = parseIpAddress(address);
    if (parsed === undefined) return false;
    const dialled = dialledAddress(parsed);
    return this.trusted.some(
      ({ range: [range, bits], ports }) =>
        range.kind() === dialled.kind() && dialled.match(range, bits) && (ports === undefined || ports.has(port)),
    );
  }
}

/** A range parseTrustedRanges accepted; anything else is a programming error. */
function rangeOf(cidr: string): [IpAddress, number] {
  const range = parseIpRange(cidr);
  if (range === undefined) throw new Error(`not an address range: ${cidr}`);
  return range;
}

/** No trusted ranges: public addresses only. */
export const PUBLIC_ONLY = new AddressPolicy();
