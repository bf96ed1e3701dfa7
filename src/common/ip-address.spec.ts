import { describe, expect, it } from 'vitest';
import { dialledAddress, parseIpAddress, parseIpRange } from './ip-address';

const shown = (text: string) => parseIpAddress(text)?.toNormalizedString();

describe('parseIpAddress', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['::1', '0:0:0:0:0:0:0:1'],
    ['::1.2.3.4', '0:0:0:0:0:0:102:304'],
    ['::ffff:1.2.3.4', '0:0:0:0:0:ffff:102:304'],
    ['64:ff9b::1.2.3.4', '64:ff9b:0:0:0:0:102:304'],
    ['2002:0102:0304::', '2002:102:304:0:0:0:0:0'],
  ])('reads %s as %s', (text, address) => {
    expect(shown(text)).toBe(address);
  });

  it('reads the IPv4-compatible ::a.b.c.d as ::a.b.c.d, not as the mapped ::ffff:a.b.c.d ipaddr.js would make of it', () => {
    expect(parseIpAddress('::10.0.0.5')?.toString()).toBe('::a00:5');
  });

  it.each(['10.1', '0x7f.1', '2130706433', '1.2.3.4/32', '[::1]', 'fe80::1%eth0', '::1.2.3', '::1.2.3.256', 'example.com', ''])(
    'reads nothing from %j',
    (text) => {
      expect(parseIpAddress(text)).toBeUndefined();
    },
  );
});

describe('parseIpRange', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0', 8],
    ['::10.0.0.0/104', '::a00:0', 104],
    ['fd00::/128', 'fd00::', 128],
  ])('reads %s', (text, address, bits) => {
    const range = parseIpRange(text);
    expect([range?.[0].toString(), range?.[1]]).toEqual([address, bits]);
  });

  it.each(['10.0.0.0', '10.0.0.0/33', '::/129', '10.0.0.0/-1', '10.0.0.0/8/8', '10/8', 'fd00::/8:443', '10.0.0.0/ 8'])(
    'reads nothing from %j',
    (text) => {
      expect(parseIpRange(text)).toBeUndefined();
    },
  );
});

describe('dialledAddress', () => {
  it.each([
    ['::ffff:1.2.3.4', '1.2.3.4', 'IPv4-mapped: a dual-stack socket sends IPv4'],
    ['::1.2.3.4', '::102:304', 'IPv4-compatible: IPv6'],
    ['64:ff9b::1.2.3.4', '64:ff9b::102:304', 'NAT64: IPv6, to the gateway'],
    ['2002:102:304::', '2002:102:304::', '6to4: IPv6'],
    ['1.2.3.4', '1.2.3.4', 'IPv4'],
  ])('dials %s as %s (%s)', (text, dialled) => {
    expect(dialledAddress(parseIpAddress(text)!).toString()).toBe(dialled);
  });
});
