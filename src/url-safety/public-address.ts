import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

const v4 = (cidr: string) => ipaddr.IPv4.parseCIDR(cidr);
const v6 = (cidr: string) => ipaddr.IPv6.parseCIDR(cidr);

/** SPEC 5.2: every IPv4 address outside these is public. */
export const IPV4_SPECIAL_PURPOSE = [
  '0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12',
  '192.0.0.0/24', '192.0.2.0/24', '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15',
  '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4',
].map(v4);

/** SPEC 5.2: an IPv6 address is public only inside global unicast and outside these. */
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
 * such is not public.
 */
export function isPublicAddress(address: string): boolean {
  if (ipaddr.IPv4.isValidFourPartDecimal(address)) return isPublicV4(ipaddr.IPv4.parse(address));
  if (ipaddr.IPv6.isValid(address) && !address.includes('%')) return isPublicV6(ipaddr.IPv6.parse(address));
  return false;
}
