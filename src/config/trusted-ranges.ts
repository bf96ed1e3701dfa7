import ipaddr from 'ipaddr.js';
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
const GRAMMAR = 'CIDR[:port[,port…]], comma-separated; IPv6 with ports as [2001:db8::/32]:443';
const BARE_NUMBER = /^\d+$/;
const BRACKETED = /^\[([^\]]*)\](?::(.*))?$/;

/**
 * TRUSTED_CIDRS: comma-separated entries `range[:port]`, where a bare number after an entry
 * with a port continues that entry's port list: `10.0.0.0/8:443,8443,192.168.0.0/16` trusts
 * ports 443 and 8443 of 10/8 and every port of 192.168/16. A range is a CIDR or an address (its
 * own /32 or /128); IPv4 in four decimal parts only (ipaddr.js reads `10/8` as 0.0.0.10/8, a
 * trap); IPv6 takes ports only inside brackets, `[fd00::/8]:443` (`fd00::1:443` would be
 * ambiguous). A bare number after an entry without ports is refused rather than guessed at.
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
  return { cidr: cidrOf(token, token) };
}

function withPort(cidr: string, port: string | undefined): { cidr: string; ports?: number[] } {
  return port === undefined ? { cidr } : { cidr, ports: [portOf(port)] };
}

function cidrOf(range: string, token: string): string {
  const slash = range.indexOf('/');
  const address = slash < 0 ? range : range.slice(0, slash);
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (!v4 && (!ipaddr.IPv6.isValid(address) || address.includes('%'))) throw invalidEntry(token);
  const cidr = slash < 0 ? `${address}/${v4 ? 32 : 128}` : range;
  try {
    ipaddr.parseCIDR(cidr);
  } catch {
    throw invalidEntry(token);
  }
  return cidr;
}

function portOf(text: string): number {
  const port = Number(text);
  if (!BARE_NUMBER.test(text) || port < 1 || port > 65535) throw invalid(`invalid port ${JSON.stringify(text)} (1-65535)`);
  return port;
}

const invalid = (problem: string) => new ConfigError(VARIABLE, problem);
const invalidEntry = (token: string) => invalid(`invalid entry ${JSON.stringify(token)} (${GRAMMAR})`);
