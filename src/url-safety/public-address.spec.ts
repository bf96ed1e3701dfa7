import { describe, expect, it } from 'vitest';
import { AddressPolicy, isPublicAddress, PUBLIC_ONLY } from './public-address';

/**
 * docs/api.md 5.2. Every expected value below is written out by hand (never derived from the
 * code under test), so a wrong range, a wrong edge or a wrong embedded-bits offset fails.
 */

interface Ipv4Range {
  readonly cidr: string;
  readonly first: string;
  readonly last: string;
  /** The address just below `first` and whether it is public (null: there is none). */
  readonly below: readonly [address: string, isPublic: boolean] | null;
  /** The address just above `last` and whether it is public (null: there is none). */
  readonly above: readonly [address: string, isPublic: boolean] | null;
}

const IPV4_RANGES: readonly Ipv4Range[] = [
  { cidr: '0.0.0.0/8', first: '0.0.0.0', last: '0.255.255.255', below: null, above: ['1.0.0.0', true] },
  { cidr: '10.0.0.0/8', first: '10.0.0.0', last: '10.255.255.255', below: ['9.255.255.255', true], above: ['11.0.0.0', true] },
  {
    cidr: '100.64.0.0/10',
    first: '100.64.0.0',
    last: '100.127.255.255',
    below: ['100.63.255.255', true],
    above: ['100.128.0.0', true],
  },
  {
    cidr: '127.0.0.0/8',
    first: '127.0.0.0',
    last: '127.255.255.255',
    below: ['126.255.255.255', true],
    above: ['128.0.0.0', true],
  },
  {
    cidr: '169.254.0.0/16',
    first: '169.254.0.0',
    last: '169.254.255.255',
    below: ['169.253.255.255', true],
    above: ['169.255.0.0', true],
  },
  {
    cidr: '172.16.0.0/12',
    first: '172.16.0.0',
    last: '172.31.255.255',
    below: ['172.15.255.255', true],
    above: ['172.32.0.0', true],
  },
  {
    cidr: '192.0.0.0/24',
    first: '192.0.0.0',
    last: '192.0.0.255',
    below: ['191.255.255.255', true],
    above: ['192.0.1.0', true],
  },
  {
    cidr: '192.0.2.0/24',
    first: '192.0.2.0',
    last: '192.0.2.255',
    below: ['192.0.1.255', true],
    above: ['192.0.3.0', true],
  },
  {
    cidr: '192.88.99.0/24',
    first: '192.88.99.0',
    last: '192.88.99.255',
    below: ['192.88.98.255', true],
    above: ['192.88.100.0', true],
  },
  {
    cidr: '192.168.0.0/16',
    first: '192.168.0.0',
    last: '192.168.255.255',
    below: ['192.167.255.255', true],
    above: ['192.169.0.0', true],
  },
  {
    cidr: '198.18.0.0/15',
    first: '198.18.0.0',
    last: '198.19.255.255',
    below: ['198.17.255.255', true],
    above: ['198.20.0.0', true],
  },
  {
    cidr: '198.51.100.0/24',
    first: '198.51.100.0',
    last: '198.51.100.255',
    below: ['198.51.99.255', true],
    above: ['198.51.101.0', true],
  },
  {
    cidr: '203.0.113.0/24',
    first: '203.0.113.0',
    last: '203.0.113.255',
    below: ['203.0.112.255', true],
    above: ['203.0.114.0', true],
  },
  // 224/4 and 240/4 touch: the neighbour on that side is itself special-purpose.
  {
    cidr: '224.0.0.0/4',
    first: '224.0.0.0',
    last: '239.255.255.255',
    below: ['223.255.255.255', true],
    above: ['240.0.0.0', false],
  },
  {
    cidr: '240.0.0.0/4',
    first: '240.0.0.0',
    last: '255.255.255.255',
    below: ['239.255.255.255', false],
    above: null,
  },
];

describe('isPublicAddress: IPv4 special-purpose ranges (docs/api.md 5.2)', () => {
  it.each(
    IPV4_RANGES.flatMap(({ cidr, first, last }) => [
      { address: first, where: `first address of ${cidr}` },
      { address: last, where: `last address of ${cidr}` },
    ]),
  )('$address ($where) is not public', ({ address }) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(
    IPV4_RANGES.flatMap(({ cidr, below, above }) => [
      ...(below ? [{ address: below[0], expected: below[1], where: `just below ${cidr}` }] : []),
      ...(above ? [{ address: above[0], expected: above[1], where: `just above ${cidr}` }] : []),
    ]),
  )('$address ($where) is public: $expected', ({ address, expected }) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it.each([
    ['255.255.255.255', 'limited broadcast, inside 240/4'],
    ['169.254.169.254', 'cloud metadata endpoint, inside 169.254/16'],
    ['127.0.0.1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['192.168.1.1', 'private LAN'],
    ['100.100.100.200', 'shared address space, inside 100.64/10'],
  ])('%s (%s) is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['8.8.8.8', 'Google DNS'],
    ['1.1.1.1', 'Cloudflare DNS'],
    ['93.184.215.14', 'an ordinary unicast address'],
    ['223.255.255.255', 'the highest public address'],
    ['1.0.0.0', 'the lowest public address'],
  ])('%s (%s) is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('isPublicAddress: IPv6 forms embedding an IPv4 address are judged by it', () => {
  it.each([
    // ::ffff:0:0/96, the IPv4-mapped form: the low 32 bits.
    ['::ffff:8.8.8.8', true, 'mapped 8.8.8.8 (dotted)'],
    ['::ffff:808:808', true, 'mapped 8.8.8.8 (hex)'],
    ['::ffff:127.0.0.1', false, 'mapped 127.0.0.1 (dotted)'],
    ['::ffff:7f00:1', false, 'mapped 127.0.0.1 (hex)'],
    ['::ffff:a00:1', false, 'mapped 10.0.0.1'],
    ['::ffff:a9fe:a9fe', false, 'mapped 169.254.169.254'],
    ['::ffff:0:0', false, 'first of ::ffff:0:0/96 (0.0.0.0)'],
    ['::ffff:ffff:ffff', false, 'last of ::ffff:0:0/96 (255.255.255.255)'],
    ['::ffff:100.63.255.255', true, 'mapped 100.63.255.255, just below 100.64/10'],
    ['::ffff:100.64.0.0', false, 'mapped 100.64.0.0, first of 100.64/10'],
    ['::ffff:100.127.255.255', false, 'mapped 100.127.255.255, last of 100.64/10'],
    ['::ffff:100.128.0.0', true, 'mapped 100.128.0.0, just above 100.64/10'],
    ['::ffff:223.255.255.255', true, 'mapped 223.255.255.255, just below 224/4'],
    // 64:ff9b::/96, the NAT64 well-known prefix: the low 32 bits.
    ['64:ff9b::8.8.8.8', true, 'NAT64 8.8.8.8 (dotted)'],
    ['64:ff9b::808:808', true, 'NAT64 8.8.8.8 (hex)'],
    ['64:ff9b::10.0.0.1', false, 'NAT64 10.0.0.1 (dotted)'],
    ['64:ff9b::a00:1', false, 'NAT64 10.0.0.1 (hex)'],
    ['64:ff9b::7f00:1', false, 'NAT64 127.0.0.1'],
    ['64:ff9b::', false, 'first of 64:ff9b::/96 (0.0.0.0)'],
    ['64:ff9b::ffff:ffff', false, 'last of 64:ff9b::/96 (255.255.255.255)'],
    ['64:ff9b::9.255.255.255', true, 'NAT64 9.255.255.255, just below 10/8'],
    ['64:ff9b::11.0.0.0', true, 'NAT64 11.0.0.0, just above 10/8'],
    // 2002::/16, 6to4: bits 16-47.
    ['2002:808:808::', true, '6to4 of 8.8.8.8'],
    ['2002:0808:0808::', true, '6to4 of 8.8.8.8 with leading zeros'],
    ['2002:808:808:ffff:ffff:ffff:ffff:ffff', true, '6to4 of 8.8.8.8, whatever the low 80 bits'],
    ['2002:a00:1::', false, '6to4 of 10.0.0.1'],
    ['2002:0a00:0001::', false, '6to4 of 10.0.0.1 with leading zeros'],
    ['2002:7f00:1::1', false, '6to4 of 127.0.0.1'],
    ['2002:c0a8:101:1::1', false, '6to4 of 192.168.1.1'],
    ['2002::', false, 'first of 2002::/16 (0.0.0.0)'],
    ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false, 'last of 2002::/16 (255.255.255.255)'],
    ['2002:643f:ffff::', true, '6to4 of 100.63.255.255, just below 100.64/10'],
    ['2002:6440::', false, '6to4 of 100.64.0.0, first of 100.64/10'],
    ['2002:647f:ffff::', false, '6to4 of 100.127.255.255, last of 100.64/10'],
    ['2002:6480::', true, '6to4 of 100.128.0.0, just above 100.64/10'],
  ])('%s is public: %s (%s)', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it.each([
    // Just outside the embedding ranges the embedded IPv4 no longer decides.
    ['::fffe:808:808', false, 'below ::ffff:0:0/96, inside ::/8 although the low bits are 8.8.8.8'],
    ['::1:0:0:0', false, 'just above ::ffff:0:0/96, inside ::/8'],
    ['::ffff:0:808:808', false, 'SIIT ::ffff:0:0:0/96, inside ::/8'],
    ['64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff', false, 'just below 64:ff9b::/96, outside 2000::/3'],
    ['64:ff9b::1:0:0', false, 'just above 64:ff9b::/96, outside 2000::/3'],
    ['64:ff9b::1:808:808', false, 'outside 64:ff9b::/96 although the low bits are 8.8.8.8'],
    ['2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true, 'just below 2002::/16, plain global unicast'],
    ['2003::', true, 'just above 2002::/16, plain global unicast'],
  ])('%s is public: %s (%s)', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('isPublicAddress: other IPv6 addresses are public only in 2000::/3 outside its special blocks', () => {
  it.each([
    // 2000::/3
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false, 'just below 2000::/3'],
    ['2000::', true, 'first of 2000::/3'],
    ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true, 'last of 2000::/3, above 3fff::/20'],
    ['4000::', false, 'just above 2000::/3'],
    // 3fff::/20 (documentation)
    ['3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true, 'just below 3fff::/20'],
    ['3fff::', false, 'first of 3fff::/20'],
    ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', false, 'last of 3fff::/20'],
    ['3fff:0fff:ffff:ffff:ffff:ffff:ffff:ffff', false, 'last of 3fff::/20, with leading zero'],
    ['3fff:1000::', true, 'just above 3fff::/20'],
    // 2001::/23 (Teredo and other IETF assignments)
    ['2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true, 'just below 2001::/23'],
    ['2001::', false, 'first of 2001::/23'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false, 'Teredo, inside 2001::/23'],
    ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', false, 'last of 2001::/23'],
    ['2001:200::', true, 'just above 2001::/23'],
    // 2001:db8::/32 (documentation)
    ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', true, 'just below 2001:db8::/32'],
    ['2001:db8::', false, 'first of 2001:db8::/32'],
    ['2001:db8::1', false, 'inside 2001:db8::/32'],
    ['2001:db8:ffff:ffff:ffff:ffff:ffff:ffff', false, 'last of 2001:db8::/32'],
    ['2001:db9::', true, 'just above 2001:db8::/32'],
    // ordinary global unicast
    ['2001:4860:4860::8888', true, 'Google DNS'],
    ['2001:4860:4860:0:0:0:0:8888', true, 'Google DNS, uncompressed'],
    ['2606:4700:4700::1111', true, 'Cloudflare DNS'],
  ])('%s is public: %s (%s)', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it.each([
    ['::', 'unspecified (::/8)'],
    ['::1', 'loopback (::/8)'],
    ['0:0:0:0:0:0:0:1', 'loopback uncompressed (::/8)'],
    ['::127.0.0.1', 'IPv4-compatible 127.0.0.1 (::/8)'],
    ['::7f00:1', 'IPv4-compatible 127.0.0.1 in hex (::/8)'],
    ['::8.8.8.8', 'IPv4-compatible 8.8.8.8 (::/8), not judged by the IPv4 part'],
    ['::808:808', 'IPv4-compatible 8.8.8.8 in hex (::/8)'],
    ['ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'last of ::/8'],
    ['64:ff9b:1::', 'first of 64:ff9b:1::/48'],
    ['64:ff9b:1::808:808', 'local-use NAT64 64:ff9b:1::/48 with 8.8.8.8 in the low bits'],
    ['64:ff9b:1:ffff:ffff:ffff:ffff:ffff', 'last of 64:ff9b:1::/48'],
    ['100::', 'first of discard-only 100::/64'],
    ['100::ffff:ffff:ffff:ffff', 'last of discard-only 100::/64'],
    ['5f00::', 'first of SRv6 5f00::/16'],
    ['5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'last of SRv6 5f00::/16'],
    ['fc00::', 'first of unique local fc00::/7'],
    ['fc00::1', 'unique local fc00::1'],
    ['fd12:3456:789a::1', 'unique local fd00::/8'],
    ['fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'last of unique local fc00::/7'],
    ['fe80::', 'first of link-local fe80::/10'],
    ['fe80::1', 'link-local fe80::1'],
    ['febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'last of link-local fe80::/10'],
    ['fec0::', 'first of site-local fec0::/10'],
    ['feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'last of site-local fec0::/10'],
    ['ff00::', 'first of multicast ff00::/8'],
    ['ff02::1', 'all-nodes multicast'],
    ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'last of multicast ff00::/8'],
  ])('%s (%s) is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('isPublicAddress: anything but a canonical address is not public', () => {
  it.each([
    ['', 'empty string'],
    ['example.com', 'a host name'],
    ['localhost', 'a single-label name'],
    ['not an address', 'words'],
    ['1.2.3', 'three parts'],
    ['1.2.3.4.5', 'five parts'],
    ['256.1.1.1', 'a part above 255'],
    [' 8.8.8.8', 'leading space'],
    ['8.8.8.8 ', 'trailing space'],
    ['8.8.8.8\n', 'trailing newline'],
    ['8.8.8.8/32', 'CIDR notation'],
    ['8.8.8.8:443', 'with a port'],
    ['[2001:4860:4860::8888]', "bracketed IPv6 (brackets are the caller's job)"],
    ['2001:4860:4860::8888/128', 'IPv6 CIDR notation'],
    [':::', 'three colons'],
    ['1::2::3', 'two double colons'],
    ['gggg::', 'non-hex IPv6 group'],
    ['::ffff:127.1', 'mapped with a short IPv4'],
  ])('%j (%s) is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['0x7f.1', '127.0.0.1 in hex short form'],
    ['127.1', '127.0.0.1 in short form'],
    ['010.0.0.1', 'leading zero (octal 8.0.0.1, decimal 10.0.0.1)'],
    ['2130706433', '127.0.0.1 as one decimal number'],
    ['134744072', 'public 8.8.8.8 as one decimal number'],
    ['0x08080808', 'public 8.8.8.8 as one hex number'],
    ['0x8.0x8.0x8.0x8', 'public 8.8.8.8 in dotted hex'],
    ['010.010.010.010', 'public 8.8.8.8 in dotted octal'],
    ['08.08.08.08', 'public 8.8.8.8 with leading zeros'],
  ])('non-canonical IPv4 spelling %j (%s) is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    ['2001:4860:4860::8888%eth0', 'public address with a named zone'],
    ['2001:4860:4860::8888%1', 'public address with a numeric zone'],
    ['fe80::1%eth0', 'link-local with a zone'],
    ['::ffff:808:808%eth0', 'mapped public address with a zone'],
  ])('zone id %j (%s) is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });
});

describe('AddressPolicy (TRUSTED_CIDRS, docs/api.md 10.4)', () => {
  describe('ranges without ports: every port', () => {
    const policy = new AddressPolicy([{ cidr: '127.0.0.1/32' }, { cidr: '10.20.0.0/16' }, { cidr: 'fd00:1::/32' }]);

    it.each(['127.0.0.1', '10.20.3.4', 'fd00:1::5', '::ffff:10.20.0.1'])('allows %s, inside a trusted range, on any port', (address) => {
      for (const port of [1, 443, 3306, 65535]) expect(policy.allows(address, port)).toBe(true);
    });

    it.each(['127.0.0.2', '10.21.0.1', 'fd00:2::1', '192.168.1.1', '::1'])(
      'refuses %s, private and outside every trusted range',
      (address) => {
        expect(policy.allows(address, 443)).toBe(false);
      },
    );

    it('still allows public addresses', () => {
      expect(policy.allows('93.184.215.14', 443)).toBe(true);
    });
  });

  describe('ranges that name their ports', () => {
    const policy = new AddressPolicy([
      { cidr: '127.0.0.1/32', ports: [9443] },
      { cidr: '10.0.0.0/8', ports: [443, 8443] },
      { cidr: 'fd00::/8', ports: [443] },
    ]);

    it.each([
      ['127.0.0.1', 9443],
      ['10.1.2.3', 443],
      ['10.1.2.3', 8443],
      ['::ffff:10.1.2.3', 8443],
      ['fd00::1', 443],
    ])("allows %s on port %i, one of its entry's ports", (address, port) => {
      expect(policy.allows(address, port)).toBe(true);
    });

    it.each([
      ['127.0.0.1', 443, 'the default port, not named'],
      ['127.0.0.1', 3000, "the service's own port"],
      ['127.0.0.1', 3306, "the database's port"],
      ['127.0.0.1', 8443, "another entry's port"],
      ['10.1.2.3', 9443, "another entry's port"],
      ['::ffff:10.1.2.3', 22, 'a mapped address on another port'],
      ['fd00::1', 8443, 'another port'],
    ])('refuses %s on port %i (%s), as it refuses any address that is not public', (address, port) => {
      expect(policy.allows(address, port)).toBe(false);
    });

    it('allows a port through any entry whose range holds the address', () => {
      const overlapping = new AddressPolicy([
        { cidr: '10.0.0.0/8', ports: [443] },
        { cidr: '10.1.0.0/16', ports: [9000] },
      ]);
      expect([overlapping.allows('10.1.0.1', 443), overlapping.allows('10.1.0.1', 9000), overlapping.allows('10.2.0.1', 9000)]).toEqual([
        true,
        true,
        false,
      ]);
    });

    it('allows public addresses on every port', () => {
      for (const port of [443, 9443, 22]) expect(policy.allows('93.184.215.14', port)).toBe(true);
    });
  });

  it('allows nothing private without trusted ranges', () => {
    expect(PUBLIC_ONLY.allows('127.0.0.1', 443)).toBe(false);
  });

  describe('judges the address the connection goes to (issue 26)', () => {
    it.each([
      ['::1.2.3.4', false, 'IPv4-compatible, how c-ares prints ::102:304: dialled as that IPv6 address, inside ::/8'],
      ['::102:304', false, 'IPv4-compatible in hex, as the URL parser prints it: inside ::/8'],
      ['::ffff:1.2.3.4', true, 'IPv4-mapped: dialled as 1.2.3.4, public'],
      ['64:ff9b::1.2.3.4', true, 'NAT64 of 1.2.3.4: judged by 1.2.3.4, public'],
      ['2002:0102:0304::', true, '6to4 of 1.2.3.4: judged by 1.2.3.4, public'],
    ])('without trusted ranges, %s is allowed: %s (%s)', (address, expected) => {
      expect(PUBLIC_ONLY.allows(address, 443)).toBe(expected);
    });

    const trusting10 = new AddressPolicy([{ cidr: '10.0.0.0/8' }]);

    it.each([
      ['10.0.0.5', true, 'inside the trusted range'],
      ['::ffff:10.0.0.5', true, 'IPv4-mapped: the connection goes to 10.0.0.5'],
      ['::ffff:a00:5', true, 'IPv4-mapped in hex'],
      ['::10.0.0.5', false, 'IPv4-compatible: the connection goes to the IPv6 ::a00:5, not to 10.0.0.5'],
      ['::a00:5', false, 'IPv4-compatible in hex'],
      ['64:ff9b::10.0.0.5', false, 'NAT64: dialled as IPv6 (to the NAT64 gateway), not inside an IPv4 range'],
      ['2002:0a00:0005::', false, '6to4: dialled as IPv6, not inside an IPv4 range'],
    ])('trusting 10.0.0.0/8, %s is allowed: %s (%s)', (address, expected) => {
      expect(trusting10.allows(address, 443)).toBe(expected);
    });

    it('trusts an IPv4-compatible or NAT64 address only through an IPv6 range that holds it, as dialled', () => {
      const policy = new AddressPolicy([{ cidr: '::a00:0/104' }, { cidr: '64:ff9b::a00:0/104' }]);
      expect(['::10.0.0.5', '::a00:5', '64:ff9b::10.0.0.5', '10.0.0.5', '::ffff:10.0.0.5'].map((a) => policy.allows(a, 443))).toEqual([
        true,
        true,
        true,
        false,
        false,
      ]);
    });

    it('reads a range written with a dotted IPv4 tail as the IPv6 range it names', () => {
      const policy = new AddressPolicy([{ cidr: '::10.0.0.0/104' }]);
      expect([policy.allows('::a00:5', 443), policy.allows('::ffff:10.0.0.5', 443)]).toEqual([true, false]);
    });
  });
});
