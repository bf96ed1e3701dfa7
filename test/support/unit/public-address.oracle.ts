/**
 * An independent oracle for docs/api.md 5.2 ("Public address"), used only by the property tests.
 *
 * It is deliberately NOT the production code and does not use ipaddr.js: addresses are plain
 * integers (IPv4 as `number`, IPv6 as `bigint`), the ranges are the CIDRs of docs/api.md 5.2 copied
 * as a table, and matching is bit arithmetic. The table strings are parsed here by a tiny
 * parser that only has to understand the table itself; the spec checks that parse against
 * Node's own `net.BlockList`, a third implementation.
 */

/** docs/api.md 5.2, IPv4: every address outside these is public. */
export const IPV4_NOT_PUBLIC_CIDRS = [
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
] as const;

/** docs/api.md 5.2, IPv6 forms that embed an IPv4 address, judged by that IPv4 address. */
export const IPV6_EMBEDDING_IPV4 = [
  { cidr: '::ffff:0:0/96', name: 'IPv4-mapped', ipv4Bits: [96, 127] },
  { cidr: '64:ff9b::/96', name: 'NAT64', ipv4Bits: [96, 127] },
  { cidr: '2002::/16', name: '6to4', ipv4Bits: [16, 47] },
] as const;

/** docs/api.md 5.2: any other IPv6 address is public iff inside this range ... */
export const IPV6_GLOBAL_UNICAST_CIDR = '2000::/3';

/** ... and outside these. */
export const IPV6_NOT_PUBLIC_IN_GLOBAL_CIDRS = ['2001::/23', '2001:db8::/32', '3fff::/20'] as const;

/**
 * The ranges docs/api.md 5.2 names as refused outside 2000::/3. Not needed for the verdict (being
 * outside 2000::/3 is enough); listed so that the generators can aim at them.
 */
export const IPV6_NAMED_NOT_PUBLIC_CIDRS = [
  '::/8',
  '64:ff9b:1::/48',
  '100::/64',
  '5f00::/16',
  'fc00::/7',
  'fe80::/10',
  'fec0::/10',
  'ff00::/8',
] as const;

// ---------------------------------------------------------------------------------------------
// Integers and CIDRs

export type Cidr4 = { readonly first: number; readonly last: number; readonly prefix: number; readonly text: string };
export type Cidr6 = { readonly first: bigint; readonly last: bigint; readonly prefix: number; readonly text: string };

const MAX_V6 = (1n << 128n) - 1n;

/** Strict dotted-quad decimal only: this parser reads the table above, nothing hostile. */
export function ipv4ToNumber(text: string): number {
  const parts = text.split('.');
  if (parts.length !== 4 || parts.some((part) => !/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255)) {
    throw new Error(`oracle: not a dotted-quad IPv4 address: ${text}`);
  }
  return parts.reduce((value, part) => value * 256 + Number(part), 0);
}

/** Full or `::`-compressed hex groups only (no dotted tail): enough for the table above. */
export function ipv6ToBigInt(text: string): bigint {
  const halves = text.split('::');
  if (halves.length > 2) throw new Error(`oracle: more than one '::' in ${text}`);
  const groups = (half: string) => (half === '' ? [] : half.split(':'));
  const head = groups(halves[0]);
  const tail = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) throw new Error(`oracle: wrong number of groups in ${text}`);
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  return all.reduce((value, group) => {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) throw new Error(`oracle: bad group '${group}' in ${text}`);
    return (value << 16n) | BigInt(parseInt(group, 16));
  }, 0n);
}

export function parseCidr4(text: string): Cidr4 {
  const [address, length] = text.split('/');
  const prefix = Number(length);
  const size = 2 ** (32 - prefix);
  const first = ipv4ToNumber(address);
  if (first % size !== 0) throw new Error(`oracle: host bits set in ${text}`);
  return { first, last: first + size - 1, prefix, text };
}

export function parseCidr6(text: string): Cidr6 {
  const [address, length] = text.split('/');
  const prefix = Number(length);
  const hostMask = (1n << BigInt(128 - prefix)) - 1n;
  const first = ipv6ToBigInt(address);
  if ((first & hostMask) !== 0n) throw new Error(`oracle: host bits set in ${text}`);
  return { first, last: first | hostMask, prefix, text };
}

export const IPV4_NOT_PUBLIC: readonly Cidr4[] = IPV4_NOT_PUBLIC_CIDRS.map(parseCidr4);
export const IPV6_GLOBAL_UNICAST: Cidr6 = parseCidr6(IPV6_GLOBAL_UNICAST_CIDR);
export const IPV6_NOT_PUBLIC_IN_GLOBAL: readonly Cidr6[] = IPV6_NOT_PUBLIC_IN_GLOBAL_CIDRS.map(parseCidr6);
export const IPV6_NAMED_NOT_PUBLIC: readonly Cidr6[] = IPV6_NAMED_NOT_PUBLIC_CIDRS.map(parseCidr6);
export const IPV6_EMBEDDING: readonly (Cidr6 & { readonly name: string; readonly from: number; readonly to: number })[] =
  IPV6_EMBEDDING_IPV4.map(({ cidr, name, ipv4Bits: [from, to] }) => ({ ...parseCidr6(cidr), name, from, to }));

const in4 = (address: number, range: Cidr4) => address >= range.first && address <= range.last;
const in6 = (address: bigint, range: Cidr6) => address >= range.first && address <= range.last;

// ---------------------------------------------------------------------------------------------
// The verdicts

/** docs/api.md 5.2 for an IPv4 address given as an unsigned 32-bit integer. */
export function isPublicIPv4(address: number): boolean {
  if (!Number.isInteger(address) || address < 0 || address > 0xffffffff) throw new Error(`oracle: not an IPv4 integer: ${address}`);
  return !IPV4_NOT_PUBLIC.some((range) => in4(address, range));
}

/**
 * The IPv4 address an IPv6 address embeds (docs/api.md 5.2), or undefined when it is none of the
 * three embedding forms. Bits are numbered from the most significant (bit 0) as in RFC 3056.
 */
export function embeddedIPv4(address: bigint): { readonly form: string; readonly ipv4: number } | undefined {
  for (const range of IPV6_EMBEDDING) {
    if (in6(address, range)) {
      const shift = BigInt(127 - range.to);
      return { form: range.name, ipv4: Number((address >> shift) & 0xffffffffn) };
    }
  }
  return undefined;
}

/** docs/api.md 5.2 for an IPv6 address given as an unsigned 128-bit integer. */
export function isPublicIPv6(address: bigint): boolean {
  if (address < 0n || address > MAX_V6) throw new Error(`oracle: not an IPv6 integer: ${address}`);
  const embedded = embeddedIPv4(address);
  if (embedded) return isPublicIPv4(embedded.ipv4);
  return in6(address, IPV6_GLOBAL_UNICAST) && !IPV6_NOT_PUBLIC_IN_GLOBAL.some((range) => in6(address, range));
}

// ---------------------------------------------------------------------------------------------
// Canonical text (how the WHATWG URL serializer prints a host), for the expected href

export function formatIPv4(address: number): string {
  return [24, 16, 8, 0].map((shift) => (Math.floor(address / 2 ** shift) % 256).toString()).join('.');
}

/** The eight 16-bit pieces, most significant first. */
export function ipv6Pieces(address: bigint): number[] {
  return Array.from({ length: 8 }, (_, index) => Number((address >> BigInt(16 * (7 - index))) & 0xffffn));
}

/**
 * WHATWG IPv6 serializer: lowercase hex without leading zeros; the first longest run of two
 * or more zero pieces becomes `::`; never a dotted IPv4 tail. Without brackets.
 */
export function formatIPv6(address: bigint): string {
  const pieces = ipv6Pieces(address);
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && pieces[start + length] === 0) length++;
    if (length > bestLength) [bestStart, bestLength] = [start, length];
  }
  if (bestStart < 0) return pieces.map((piece) => piece.toString(16)).join(':');
  const hex = (list: number[]) => list.map((piece) => piece.toString(16)).join(':');
  return `${hex(pieces.slice(0, bestStart))}::${hex(pieces.slice(bestStart + bestLength))}`;
}
