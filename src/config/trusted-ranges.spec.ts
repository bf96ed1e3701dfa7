import { describe, expect, it } from 'vitest';
import { ConfigError } from './environment';
import { parseTrustedRanges, trustedRangesForLog } from './trusted-ranges';

/** The message of the ConfigError parsing `value` throws (fails the test when it throws none). */
function problemOf(value: string): string {
  try {
    parseTrustedRanges(value);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe('parseTrustedRanges (TRUSTED_CIDRS, docs/api.md 10.4)', () => {
  it('reads nothing from an empty value', () => {
    expect(parseTrustedRanges('')).toEqual([]);
    expect(parseTrustedRanges(' , ')).toEqual([]);
  });

  it.each([
    ['a CIDR without ports: every port, as before ports could be named', '10.0.0.0/8', [{ cidr: '10.0.0.0/8' }]],
    ['a bare IPv4 address: its own /32', '127.0.0.1', [{ cidr: '127.0.0.1/32' }]],
    ['a bare IPv6 address: its own /128', '::1', [{ cidr: '::1/128' }]],
    ['an IPv6 CIDR without brackets', 'fd00::/8', [{ cidr: 'fd00::/8' }]],
    ['an IPv6 CIDR in brackets, no ports', '[fd00::/8]', [{ cidr: 'fd00::/8' }]],
    ['a CIDR and one port', '127.0.0.1/32:9443', [{ cidr: '127.0.0.1/32', ports: [9443] }]],
    ['an address and one port', '127.0.0.1:9443', [{ cidr: '127.0.0.1/32', ports: [9443] }]],
    ['a CIDR and a port list', '10.0.0.0/8:443,8443', [{ cidr: '10.0.0.0/8', ports: [443, 8443] }]],
    [
      'a port list, then an entry without ports',
      '10.0.0.0/8:443,8443,192.168.0.0/16',
      [{ cidr: '10.0.0.0/8', ports: [443, 8443] }, { cidr: '192.168.0.0/16' }],
    ],
    [
      'two entries with ports',
      '10.0.0.0/8:8443,443,172.16.0.0/12:9000',
      [
        { cidr: '10.0.0.0/8', ports: [443, 8443] },
        { cidr: '172.16.0.0/12', ports: [9000] },
      ],
    ],
    ['a bracketed IPv6 CIDR and ports', '[2001:db8::/32]:443,8443', [{ cidr: '2001:db8::/32', ports: [443, 8443] }]],
    ['a bracketed IPv6 address and a port', '[::1]:9443', [{ cidr: '::1/128', ports: [9443] }]],
    ['spaces around entries and ports', ' 10.0.0.0/8:443 , 8443 ,::1 ', [{ cidr: '10.0.0.0/8', ports: [443, 8443] }, { cidr: '::1/128' }]],
    ['a port named twice, once', '10.0.0.0/8:443,443', [{ cidr: '10.0.0.0/8', ports: [443] }]],
    ['the lowest and highest ports', '10.0.0.0/8:1,65535', [{ cidr: '10.0.0.0/8', ports: [1, 65535] }]],
  ])('reads %s', (_, value, expected) => {
    expect(parseTrustedRanges(value)).toEqual(expected);
  });

  it.each([
    ['a port before any entry', '8443', 'a port must follow an entry that names its ports'],
    [
      'a bare number after an entry without ports (all ports already)',
      '127.0.0.1/32,9443',
      'a port must follow an entry that names its ports',
    ],
    ['port 0', '127.0.0.1/32:0', 'port'],
    ['a port above 65535', '127.0.0.1/32:65536', 'port'],
    ['a port list continued with 0', '127.0.0.1/32:443,0', 'port'],
    ['an empty port', '127.0.0.1/32:', 'port'],
    ['a signed port', '127.0.0.1/32:+443', 'port'],
    ['a port with a space inside the entry', '127.0.0.1/32: 443', 'port'],
    ['a port range (not supported)', '127.0.0.1/32:8000-8099', 'port'],
    ['a short IPv4 form (ipaddr.js would read 10/8 as 0.0.0.10/8)', '10/8', 'invalid entry'],
    ['a one-number IPv4 form', '2130706433/32', 'invalid entry'],
    ['an IPv4 prefix too long', '127.0.0.1/33', 'invalid entry'],
    ['an IPv6 prefix too long', 'fd00::/129', 'invalid entry'],
    ['an unbracketed IPv6 CIDR with a port', 'fd00::/8:443', 'invalid entry'],
    ['an IPv4 address in brackets', '[127.0.0.1]:443', 'invalid entry'],
    ['an IPv6 address with a zone', 'fe80::1%eth0', 'invalid entry'],
    ['a host name', 'internal.example.com:443', 'invalid entry'],
    ['garbage after the brackets', '[::1]x', 'invalid entry'],
  ])('refuses %s with a ConfigError naming TRUSTED_CIDRS', (_, value, problem) => {
    const message = problemOf(value);
    expect(message).toMatch(/^TRUSTED_CIDRS: /);
    expect(message).toContain(problem);
  });
});

describe('trustedRangesForLog', () => {
  it('names each range with its ports, or all of them', () => {
    expect(trustedRangesForLog(parseTrustedRanges('127.0.0.1/32:9443,10.0.0.0/8:443,8443,192.168.0.0/16'))).toEqual([
      { range: '127.0.0.1/32', ports: [9443] },
      { range: '10.0.0.0/8', ports: [443, 8443] },
      { range: '192.168.0.0/16', ports: 'all' },
    ]);
  });
});
