import { describe, expect, it } from 'vitest';
import { ConfigError } from './environment';
import { parseTrustedRanges, trustedRangesForLog, trustedRangeWarnings } from './trusted-ranges';

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
    ['an IPv6 address in brackets: its own /128', '[::1]', [{ cidr: '::1/128' }]],
    ['an IPv6 CIDR without brackets', 'fd12:3456:789a::/48', [{ cidr: 'fd12:3456:789a::/48' }]],
    ['an IPv6 CIDR in brackets, no ports', '[fd12:3456:789a::/48]', [{ cidr: 'fd12:3456:789a::/48' }]],
    ['the widest IPv4 range, a /8', '10.0.0.0/8', [{ cidr: '10.0.0.0/8' }]],
    ['the widest IPv6 range, a /16', 'fd12::/16', [{ cidr: 'fd12::/16' }]],
    ['an IPv6 address as ipaddr.js prints it', '[FD00:0:0::0001]:443', [{ cidr: 'fd00::1/128', ports: [443] }]],
    ['an IPv4-compatible address: the IPv6 address a connection goes to', '[::10.0.0.1]', [{ cidr: '::a00:1/128' }]],
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
    ['an unbracketed IPv6 CIDR with a port', 'fd00:1::/32:443', 'an IPv6 range names its ports in brackets: [fd00:1::/32]:443'],
    ['an IPv6 address that is not one, outside brackets', 'fd00::g', 'invalid entry'],
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

describe('parseTrustedRanges refuses ranges too wide to trust (at least /8 for IPv4, /16 for IPv6)', () => {
  it.each([
    ['0.0.0.0/0', '/0'],
    ['0.0.0.0/0:443', '/0'],
    ['128.0.0.0/1', '/1'],
    ['10.0.0.0/7', '/7'],
    ['::/0', '/0'],
    ['[::/0]:443', '/0'],
    ['2000::/3', '/3'],
    ['fc00::/7', '/7'],
    ['fd00::/8', '/8'],
    ['fd00::/15', '/15'],
  ])('%s, in one line naming TRUSTED_CIDRS', (value, bits) => {
    expect(problemOf(value)).toBe(
      `TRUSTED_CIDRS: ${JSON.stringify(value)}: ${bits} is too wide to trust (at least /8 for IPv4, /16 for IPv6): ` +
        'it would count private and reserved addresses as public',
    );
  });
});

describe('parseTrustedRanges: an IPv6 address outside brackets is read as one only when nothing else can be meant', () => {
  it('refuses fd00::1:443 (the address fd00::1:443, or port 443 of fd00::1?) rather than trust an address on every port', () => {
    expect(problemOf('fd00::1:443')).toBe(
      'TRUSTED_CIDRS: "fd00::1:443" is ambiguous outside brackets: ' +
        'write [fd00::1:443] for that address on every port, or [fd00::1]:443 for port 443 of fd00::1',
    );
  });

  it.each([
    ['::1:443', 'write [::1:443] for that address on every port, or [::1]:443 for port 443 of ::1'],
    ['2001:db8::1:8443', 'write [2001:db8::1:8443] for that address on every port, or [2001:db8::1]:8443 for port 8443 of 2001:db8::1'],
    ['fe80::a:1', 'write [fe80::a:1] for that address on every port, or [fe80::a]:1 for port 1 of fe80::a'],
  ])('refuses %s, naming both bracketed forms', (value, fix) => {
    expect(problemOf(value)).toBe(`TRUSTED_CIDRS: ${JSON.stringify(value)} is ambiguous outside brackets: ${fix}`);
  });

  it('refuses an address and a port that could be nothing else, naming the bracketed form', () => {
    expect(problemOf('fd00::1:65535')).toBe(
      'TRUSTED_CIDRS: "fd00::1:65535": an IPv6 address names its port in brackets: write [fd00::1]:65535 for port 65535 of fd00::1',
    );
  });

  it.each([
    ['::1', '::1/128', 'nothing before its last colon is an address'],
    ['fd00::1', 'fd00::1/128', '"fd00:" is no address'],
    ['2001:db8:0:0:0:0:1:443', '2001:db8::1:443/128', 'eight groups: seven are no address'],
    ['fd00::1:abc', 'fd00::1:abc/128', 'abc is no port'],
    ['fd00::1:0', 'fd00::1:0/128', '0 is no port'],
    ['::ffff:0:10.0.0.1', '::ffff:0:a00:1/128', 'a dotted tail is no port'],
  ])('reads %s as the address %s (%s)', (value, cidr) => {
    expect(parseTrustedRanges(value)).toEqual([{ cidr }]);
  });

  it('reads the ambiguous address in brackets, on every port or on the one named', () => {
    expect(parseTrustedRanges('[fd00::1:443],[fd00::1]:443')).toEqual([{ cidr: 'fd00::1:443/128' }, { cidr: 'fd00::1/128', ports: [443] }]);
  });
});

describe('parseTrustedRanges: an IPv4-mapped range is matched as IPv4', () => {
  it.each([
    ['[::ffff:10.0.0.0/104]', '10.0.0.0/8'],
    ['[::ffff:a00:1]:443', '10.0.0.1/32'],
    ['[::ffff:127.0.0.1]', '127.0.0.1/32'],
  ])('refuses %s, naming its IPv4 form %s', (value, ipv4) => {
    expect(problemOf(value)).toBe(
      `TRUSTED_CIDRS: ${JSON.stringify(value)}: an IPv4-mapped range is reached over IPv4 and matched as IPv4: write ${ipv4}`,
    );
  });
});

describe('trustedRangeWarnings (the start-up log, docs/api.md 10.4)', () => {
  it.each(['10.0.0.0/8:443', 'fd12:3456:789a::/48', '[2001:db8::/32]:443', '100.64.0.0/10', '1.0.0.0/8', '[::10.0.0.1]', '169.253.0.0/16'])(
    'says nothing of %s',
    (value) => {
      expect(trustedRangeWarnings(parseTrustedRanges(value))).toEqual([]);
    },
  );

  it.each([
    ['127.0.0.1/32:9443', '127.0.0.1/32 covers loopback (127.0.0.0/8)', 'on port 9443'],
    ['127.0.0.0/8', '127.0.0.0/8 covers loopback (127.0.0.0/8)', 'on every port'],
    ['[::1]:443,8443', '::1/128 covers loopback (::1)', 'on ports 443, 8443'],
    ['::/16', '::/16 covers loopback (::1), the unspecified address (::, which a connection reaches as loopback)', 'on every port'],
    ['0.0.0.0/32:443', '0.0.0.0/32 covers this host (0.0.0.0/8, which a connection reaches as loopback)', 'on port 443'],
    ['[::]:443', '::/128 covers the unspecified address (::, which a connection reaches as loopback)', 'on port 443'],
    ['169.254.10.0/24', '169.254.10.0/24 covers link-local addresses (169.254.0.0/16)', 'on every port'],
    ['[fe80::/64]:443', 'fe80::/64 covers link-local addresses (fe80::/10)', 'on port 443'],
    [
      '169.254.0.0/16',
      '169.254.0.0/16 covers link-local addresses (169.254.0.0/16), the cloud metadata address 169.254.169.254',
      'on every port',
    ],
    [
      '169.0.0.0/8:80',
      '169.0.0.0/8 covers link-local addresses (169.254.0.0/16), the cloud metadata address 169.254.169.254',
      'on port 80',
    ],
    ['fd00::/16', 'fd00::/16 covers the cloud metadata address fd00:ec2::254', 'on every port'],
    ['[fd00:ec2::254]:80', 'fd00:ec2::254/128 covers the cloud metadata address fd00:ec2::254', 'on port 80'],
  ])('warns of %s', (value, covers, ports) => {
    expect(trustedRangeWarnings(parseTrustedRanges(value))).toEqual([
      `TRUSTED_CIDRS: ${covers}: every organization's webhooks may reach it, ${ports}`,
    ]);
  });

  it('warns once per range that covers any, in order', () => {
    expect(trustedRangeWarnings(parseTrustedRanges('10.0.0.0/8,127.0.0.1/32:9443,192.168.0.0/16,[::1]'))).toEqual([
      "TRUSTED_CIDRS: 127.0.0.1/32 covers loopback (127.0.0.0/8): every organization's webhooks may reach it, on port 9443",
      "TRUSTED_CIDRS: ::1/128 covers loopback (::1): every organization's webhooks may reach it, on every port",
    ]);
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
