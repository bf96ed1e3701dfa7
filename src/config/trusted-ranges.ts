import ipaddr from 'ipaddr.js';
import { IpAddress, parseIpAddress, parseIpRange } from '../common/ip-address';
import { ConfigError } from './environment';

/**
 * One TRUSTED_CIDRS entry (docs/api.md 10.4): a range whose addresses count as public, and the
 * ports on which they do. A trusted range is reached from every organization's webhooks, and the
 * delivery log tells an open port (`tls error`, `http 404`) from a closed one (`connection
 * failed`): trusting every port of 127.0.0.1 lets anyone map the host's loopback services, this
 * one's included. Naming the receivers' ports keeps the rest out of reach.
 */
export interface TrustedRange {
  /** `address/bits`. */
  readonly cidr: string;
  /** Ascending, distinct; absent: every port (an entry that names none). */
  readonly ports?: readonly number[];
}

const VARIABLE = 'TRUSTED_CIDRS';
const GRAMMAR = 'CIDR[:port[,port…]], comma-separated; IPv6 in brackets to name ports, [fd12:3456:789a::/48]:443';
const BARE_NUMBER = /^\d+$/;
const BRACKETED = /^\[([^\]]*)\](?::(.*))?$/;

/**
 * The widest range an entry may trust. IPv4 /8: the largest private block (10/8) and the largest
 * allocation one network ever held; anything wider spans several /8s and special-purpose ranges
 * with them. IPv6 /16: the largest allocations to one network are about a /19 (an LIR gets a /29
 * or /32, a unique-local site is a /48, RFC 4193); a /15 or wider is a typo or a way of switching
 * the defence off (`::/0`, all of global unicast `2000::/3`, every organization's unique-local
 * addresses `fc00::/7` or `fd00::/8`, where a site trusts its own /48).
 */
const MIN_PREFIX = { ipv4: 8, ipv6: 16 } as const;

/**
 * What a trusted range should not cover without the operator knowing (docs/api.md 10.4): each
 * warned about at start. The metadata endpoints hand out the host's cloud credentials; on Linux a
 * connection to 0.0.0.0 or :: reaches the host's own listeners, as loopback does.
 */
const WORTH_A_WARNING: readonly { readonly range: [IpAddress, number]; readonly what: string }[] = [
  ['127.0.0.0/8', 'loopback (127.0.0.0/8)'],
  ['::1/128', 'loopback (::1)'],
  ['0.0.0.0/8', 'this host (0.0.0.0/8, which a connection reaches as loopback)'],
  ['::/128', 'the unspecified address (::, which a connection reaches as loopback)'],
  ['169.254.0.0/16', 'link-local addresses (169.254.0.0/16)'],
  ['fe80::/10', 'link-local addresses (fe80::/10)'],
  ['169.254.169.254/32', 'the cloud metadata address 169.254.169.254'],
  ['fd00:ec2::254/128', 'the cloud metadata address fd00:ec2::254'],
].map(([cidr, what]) => ({ range: parseIpRange(cidr)!, what }));

/**
 * TRUSTED_CIDRS: comma-separated entries `range[:port]`, where a bare number after an entry
 * with a port continues that entry's port list: `10.0.0.0/8:443,8443,192.168.0.0/16` trusts
 * ports 443 and 8443 of 10/8 and every port of 192.168/16. A range is a CIDR or an address (its
 * own /32 or /128), at most MIN_PREFIX wide; IPv4 in four decimal parts only (ipaddr.js reads
 * `10/8` as 0.0.0.10/8, a trap). IPv6 takes ports only inside brackets, `[fd00:1::/32]:443`,
 * `[fd00::1]:443`; outside them an address that could also be read as an address and a port
 * (`fd00::1:443`) is refused, never trusted on every port. An IPv4-mapped range is refused: a
 * connection to `::ffff:a.b.c.d` goes to a.b.c.d, which only an IPv4 entry matches. A bare number
 * after an entry without ports is refused rather than guessed at.
 */
export function parseTrustedRanges(value: string): TrustedRange[] {
  const entries: { cidr: string; ports?: number[] }[] = [];
  for (const token of value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')) {
    if (BARE_NUMBER.test(token)) {
      const last = entries.at(-1);
      if (last?.ports === undefined)
        throw invalid(`${JSON.stringify(token)}: a port must follow an entry that names its ports (${GRAMMAR})`);
      last.ports.push(portOf(token));
    } else {
      entries.push(entryOf(token));
    }
  }
  return entries.map(({ cidr, ports }) => (ports === undefined ? { cidr } : { cidr, ports: [...new Set(ports)].sort((a, b) => a - b) }));
}

/** What the start-up log says of each range: its ports, or `all`. */
export const trustedRangesForLog = (ranges: readonly TrustedRange[]): { range: string; ports: readonly number[] | 'all' }[] =>
  ranges.map(({ cidr, ports }) => ({ range: cidr, ports: ports ?? 'all' }));

/**
 * The start-up warnings of the ranges that cover loopback, link-local or a cloud metadata address:
 * allowed (a receiver on loopback is how one machine runs the tour), but every organization's
 * webhooks may reach what they cover.
 */
export function trustedRangeWarnings(ranges: readonly TrustedRange[]): string[] {
  return ranges.flatMap(({ cidr, ports }) => {
    const [address, bits] = parseIpRange(cidr)!;
    const covered = WORTH_A_WARNING.filter(
      ({ range: [special, specialBits] }) => special.kind() === address.kind() && address.match(special, Math.min(bits, specialBits)),
    );
    if (covered.length === 0) return [];
    const where = ports === undefined ? 'every port' : `port${ports.length > 1 ? 's' : ''} ${ports.join(', ')}`;
    return [
      `${VARIABLE}: ${cidr} covers ${covered.map(({ what }) => what).join(', ')}: every organization's webhooks may reach it, on ${where}`,
    ];
  });
}

function entryOf(token: string): { cidr: string; ports?: number[] } {
  const bracketed = BRACKETED.exec(token);
  if (bracketed) {
    const [, range, port] = bracketed;
    if (!range.includes(':')) throw invalidEntry(token);
    return withPort(cidrOf(range, token), port);
  }
  // An IPv4 range has no colon, so one colon sets off its port; an IPv6 range has several.
  const colons = token.split(':').length - 1;
  if (colons === 1) {
    const [range, port] = token.split(':');
    return withPort(cidrOf(range, token), port);
  }
  if (colons === 0) return { cidr: cidrOf(token, token) };
  // IPv6 outside brackets: no ports.
  const slash = token.indexOf('/');
  if (slash < 0) return unbracketedAddress(token);
  const [bits, ...port] = token.slice(slash + 1).split(':');
  if (port.length > 0) {
    throw invalid(
      `${JSON.stringify(token)}: an IPv6 range names its ports in brackets: [${token.slice(0, slash)}/${bits}]:${port.join(':')}`,
    );
  }
  return { cidr: cidrOf(token, token) };
}

function withPort(cidr: string, port: string | undefined): { cidr: string; ports?: number[] } {
  return port === undefined ? { cidr } : { cidr, ports: [portOf(port)] };
}

/** `range` (`address/bits` or an address) as `address/bits`, the address as ipaddr.js prints it. */
function cidrOf(range: string, token: string): string {
  const parsed = parseIpRange(range.includes('/') ? range : `${range}/${range.includes(':') ? 128 : 32}`);
  if (parsed === undefined) throw invalidEntry(token);
  const [address, bits] = parsed;
  if (bits < MIN_PREFIX[address.kind()]) {
    throw invalid(
      `${JSON.stringify(token)}: /${bits} is too wide to trust (at least /${MIN_PREFIX.ipv4} for IPv4, /${MIN_PREFIX.ipv6} for IPv6): ` +
        'it would count private and reserved addresses as public',
    );
  }
  if (address instanceof ipaddr.IPv6 && address.isIPv4MappedAddress() && bits >= 96) {
    throw invalid(
      `${JSON.stringify(token)}: an IPv4-mapped range is reached over IPv4 and matched as IPv4: write ${address.toIPv4Address().toString()}/${bits - 96}`,
    );
  }
  return `${address.toString()}/${bits}`;
}

function portOf(text: string): number {
  const port = Number(text);
  if (!BARE_NUMBER.test(text) || port < 1 || port > 65535) throw invalid(`invalid port ${JSON.stringify(text)} (1-65535)`);
  return port;
}

/**
 * An IPv6 address outside brackets, read as that address only when nothing else can be meant:
 * `fd00::1:443` is the address fd00::1:443, or port 443 of fd00::1, and is refused with both
 * bracketed forms; `fd00::1` or `::1` is the address (`fd00:` or `:` is no address a port could follow).
 */
function unbracketedAddress(token: string): { cidr: string } {
  const last = token.lastIndexOf(':');
  const [address, port] = [token.slice(0, last), token.slice(last + 1)];
  const portReading = parseIpAddress(address) !== undefined && /^[1-9]\d{0,4}$/.test(port) && Number(port) <= 65535;
  if (!portReading) return { cidr: cidrOf(token, token) };
  const portForm = `[${address}]:${port} for port ${port} of ${address}`;
  throw invalid(
    parseIpAddress(token) === undefined
      ? `${JSON.stringify(token)}: an IPv6 address names its port in brackets: write ${portForm}`
      : `${JSON.stringify(token)} is ambiguous outside brackets: write [${token}] for that address on every port, or ${portForm}`,
  );
}

const invalid = (problem: string) => new ConfigError(VARIABLE, problem);
const invalidEntry = (token: string) => invalid(`invalid entry ${JSON.stringify(token)} (${GRAMMAR})`);
