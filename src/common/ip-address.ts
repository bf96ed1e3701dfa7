import ipaddr from 'ipaddr.js';

export type IpAddress = ipaddr.IPv4 | ipaddr.IPv6;

const DOTTED_TAIL = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/**
 * An address as the WHATWG parser, a resolver or an operator writes it: dotted-quad IPv4 (four
 * decimal parts only: ipaddr.js would read `10.1` or `0x7f.1` too) or IPv6 without brackets or zone.
 * Undefined for anything else.
 *
 * An IPv6 address whose last 32 bits are written as a dotted IPv4 address is read with that tail
 * as two hex groups: ipaddr.js reads `::a.b.c.d` (IPv4-compatible, which is how c-ares prints an
 * AAAA answer inside ::/96) as `::ffff:a.b.c.d` (IPv4-mapped), an address the socket would never
 * dial (issue 26). A tail that is not four decimal octets is no address.
 */
export function parseIpAddress(text: string): IpAddress | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  const v6 = withHexTail(text);
  return v6 !== undefined && ipaddr.IPv6.isValid(v6) && !v6.includes('%') ? ipaddr.IPv6.parse(v6) : undefined;
}

/**
 * `address/bits`, the address read as parseIpAddress reads one (so `::10.0.0.0/104` is the
 * IPv4-compatible range, not the mapped one), the bits 0-32 or 0-128 in decimal. Undefined for
 * anything else.
 */
export function parseIpRange(text: string): [IpAddress, number] | undefined {
  const slash = text.indexOf('/');
  const address = parseIpAddress(text.slice(0, slash));
  const bits = text.slice(slash + 1);
  if (slash < 0 || address === undefined || !/^\d{1,3}$/.test(bits) || Number(bits) > (address.kind() === 'ipv4' ? 32 : 128)) {
    return undefined;
  }
  return [address, Number(bits)];
}

/**
 * The address a connection to `address` reaches: an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`)
 * is its IPv4 address, as a dual-stack socket sends IPv4 packets to it; every other IPv6 address,
 * the IPv4-compatible, NAT64 and 6to4 forms included, is dialled as IPv6.
 */
export function dialledAddress(address: IpAddress): IpAddress {
  return address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() ? address.toIPv4Address() : address;
}

function withHexTail(address: string): string | undefined {
  if (!address.includes('.')) return address;
  const match = DOTTED_TAIL.exec(address);
  const octets = match?.slice(2).map(Number);
  if (!match || !octets || octets.some((octet) => octet > 255)) return undefined;
  const hex = (high: number, low: number) => ((high << 8) | low).toString(16);
  return `${match[1]}${hex(octets[0], octets[1])}:${hex(octets[2], octets[3])}`;
}
