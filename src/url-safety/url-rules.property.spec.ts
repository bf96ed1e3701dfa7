import { BlockList } from 'node:net';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  IPV4_NOT_PUBLIC_CIDRS,
  IPV6_EMBEDDING_IPV4,
  IPV6_GLOBAL_UNICAST_CIDR,
  IPV6_NOT_PUBLIC_IN_GLOBAL_CIDRS,
  embeddedIPv4,
  formatIPv4,
  formatIPv6,
  ipv4ToNumber,
  ipv6ToBigInt,
  isPublicIPv4,
  isPublicIPv6,
} from '../../test/support/unit/public-address.oracle';
import {
  type AcceptedHost,
  acceptedHost,
  allowedName,
  invalidIpv4Host,
  invisibleChar,
  ipv4Address,
  ipv4Spelling,
  ipv6Address,
  ipv6Spelling,
  port,
  refusedName,
  scheme,
  schemeSeparator,
  urlTail,
  userinfo,
} from '../../test/support/unit/url-arbitraries';
import { checkUrl } from './url-rules';

/**
 * Property tests of the static URL rules (docs/api.md 5.1 rules 1-5) against an independent oracle of
 * docs/api.md 5.2 (./testing/public-address.oracle.ts: a CIDR table and bit arithmetic, no ipaddr.js).
 * The generators keep the address or name they meant; the oracle judges that, and production
 * must agree on every spelling of it.
 *
 * FUZZ_RUNS sets the runs per property (default 500: 5,000 cases in all); FUZZ_SEED replays a reported seed.
 * The long fuzz: `FUZZ_RUNS=100000 npx vitest run src/url-safety/url-rules.property.spec.ts`.
 */

const RUNS = positiveInteger(process.env.FUZZ_RUNS, 500);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
/** Generous: about 0.1 ms per case is typical; the long run must not trip the 5 s default. */
const TIMEOUT_MS = 10_000 + RUNS * 2;

function positiveInteger(text: string | undefined, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`FUZZ_RUNS must be a positive integer, not '${text}'`);
  return value;
}

let casesChecked = 0;
let propertiesChecked = 0;

/** Runs one property, counts its cases, and fails with fast-check's counterexample report. */
function holds<Ts>(property: fc.IProperty<Ts>): void {
  const details = fc.check(property, { numRuns: RUNS, seed: SEED });
  casesChecked += details.numRuns;
  propertiesChecked += 1;
  if (details.failed) throw new Error(fc.defaultReportMessage(details));
}

afterAll(() => {
  process.stdout.write(
    `\nurl-rules fuzz: ${casesChecked} generated cases checked over ${propertiesChecked} properties (FUZZ_RUNS=${RUNS}${SEED === undefined ? '' : `, FUZZ_SEED=${SEED}`})\n`,
  );
});

// Messages written out (not imported) so that a changed message is a visible change.
const NOT_PUBLIC = 'must not point to a private, loopback or reserved address';
const USERINFO = 'must not contain a username or password';

/** The verdict production owes an accepted host: literals carry no hostname (nothing to resolve). */
const accepted = (host: AcceptedHost, href: string) =>
  host.kind === 'name' ? { ok: true, href, hostname: host.host } : { ok: true, href };

/** What the WHATWG parser itself makes of a host: the generators must mean what they say. */
const parsedHost = (hostText: string) => new URL(`https://${hostText}/`).host;

describe('the oracle (docs/api.md 5.2 written as a table) is itself right', () => {
  it.each([
    ['0.0.0.0', false],
    ['0.255.255.255', false],
    ['1.0.0.0', true],
    ['8.8.8.8', true],
    ['9.255.255.255', true],
    ['10.0.0.0', false],
    ['10.255.255.255', false],
    ['11.0.0.0', true],
    ['100.63.255.255', true],
    ['100.64.0.0', false],
    ['100.127.255.255', false],
    ['100.128.0.0', true],
    ['126.255.255.255', true],
    ['127.0.0.1', false],
    ['128.0.0.0', true],
    ['169.254.169.254', false],
    ['172.15.255.255', true],
    ['172.16.0.0', false],
    ['172.31.255.255', false],
    ['172.32.0.0', true],
    ['192.0.0.8', false],
    ['192.0.1.1', true],
    ['192.0.2.1', false],
    ['192.0.3.0', true],
    ['192.88.99.1', false],
    ['192.88.100.0', true],
    ['192.167.255.255', true],
    ['192.168.1.1', false],
    ['192.169.0.0', true],
    ['198.17.255.255', true],
    ['198.18.0.0', false],
    ['198.19.255.255', false],
    ['198.20.0.0', true],
    ['198.51.100.7', false],
    ['203.0.113.9', false],
    ['203.0.114.0', true],
    ['223.255.255.255', true],
    ['224.0.0.0', false],
    ['239.255.255.255', false],
    ['240.0.0.1', false],
    ['255.255.255.255', false],
  ] as const)('IPv4 %s is public: %s', (address, expected) => {
    expect(isPublicIPv4(ipv4ToNumber(address))).toBe(expected);
  });

  it.each([
    ['::', false],
    ['::1', false],
    ['::808:808', false], // IPv4-compatible is in ::/8
    ['::ffff:808:808', true],
    ['::ffff:7f00:1', false],
    ['::ffff:a9fe:a9fe', false], // mapped
    ['::ffff:0:808:808', false], // SIIT ::ffff:0:0:0/96 is not the mapped form
    ['64:ff9b::808:808', true],
    ['64:ff9b::a00:1', false],
    ['64:ff9b::1:808:808', false], // NAT64 is a /96: a set bit 95 leaves it
    ['64:ff9b:1::808:808', false],
    ['100::1', false],
    ['5f00::1', false],
    ['2002:808:808::', true],
    ['2002:808:808:ffff:ffff:ffff:ffff:ffff', true],
    ['2002:a00:1::', false],
    ['2002:c0a8:101::1', false],
    ['2002:7f00:1:ffff::', false],
    ['1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false],
    ['2000::', true],
    ['2001::1', false],
    ['2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff', false],
    ['2001:200::', true],
    ['2001:db7:ffff:ffff:ffff:ffff:ffff:ffff', true],
    ['2001:db8::1', false],
    ['2001:db9::', true],
    ['2606:4700:4700::1111', true],
    ['3ffe:ffff::', true],
    ['3fff::', false],
    ['3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff', false],
    ['3fff:1000::', true],
    ['3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', true],
    ['4000::', false],
    ['fc00::1', false],
    ['fdff::1', false],
    ['fe80::1', false],
    ['fec0::1', false],
    ['ff02::1', false],
  ] as const)('IPv6 %s is public: %s', (address, expected) => {
    expect(isPublicIPv6(ipv6ToBigInt(address))).toBe(expected);
  });

  it.each([
    ['::ffff:7f00:1', '127.0.0.1'],
    ['64:ff9b::c0a8:101', '192.168.1.1'],
    ['2002:c000:22a::1', '192.0.2.42'],
    ['2002:808:404:ffff:ffff:ffff:ffff:ffff', '8.8.4.4'],
  ])('%s embeds %s', (address, ipv4) => {
    expect(formatIPv4(embeddedIPv4(ipv6ToBigInt(address))?.ipv4 ?? -1)).toBe(ipv4);
  });

  it(
    "agrees with node:net's BlockList on its own CIDR table, for addresses around every edge",
    () => {
      const v4 = new BlockList();
      for (const cidr of IPV4_NOT_PUBLIC_CIDRS) v4.addSubnet(cidr.split('/')[0], Number(cidr.split('/')[1]), 'ipv4');
      // One family per list: a BlockList of IPv4 rules also matches IPv4-mapped IPv6 addresses.
      const list6 = (cidrs: readonly string[]) => {
        const list = new BlockList();
        for (const cidr of cidrs) list.addSubnet(cidr.split('/')[0], Number(cidr.split('/')[1]), 'ipv6');
        return list;
      };
      const globalUnicast = list6([IPV6_GLOBAL_UNICAST_CIDR]);
      const excluded = list6(IPV6_NOT_PUBLIC_IN_GLOBAL_CIDRS);
      const embedding = IPV6_EMBEDDING_IPV4.map(({ cidr, ipv4Bits: [from] }) => ({ list: list6([cidr]), hexFrom: from / 4 }));

      holds(
        fc.property(ipv4Address, ipv6Address, (address4, address6) => {
          expect(isPublicIPv4(address4)).toBe(!v4.check(formatIPv4(address4), 'ipv4'));

          const text6 = formatIPv6(address6);
          const form = embedding.find(({ list }) => list.check(text6, 'ipv6'));
          if (form) {
            // The embedded IPv4 address, read off the 32 hex digits of the address.
            const hex = address6
              .toString(16)
              .padStart(32, '0')
              .slice(form.hexFrom, form.hexFrom + 8);
            expect(embeddedIPv4(address6)?.ipv4).toBe(parseInt(hex, 16));
            expect(isPublicIPv6(address6)).toBe(!v4.check(formatIPv4(parseInt(hex, 16)), 'ipv4'));
          } else {
            expect(embeddedIPv4(address6)).toBeUndefined();
            expect(isPublicIPv6(address6)).toBe(globalUnicast.check(text6, 'ipv6') && !excluded.check(text6, 'ipv6'));
          }
        }),
      );
    },
    TIMEOUT_MS,
  );
});

describe('checkUrl agrees with the oracle on IP literals (docs/api.md 5.1 rule 5, docs/api.md 5.2)', () => {
  it(
    'an IPv4 literal in any spelling the parser accepts is accepted iff its address is public, and stored as dotted decimal',
    () => {
      holds(
        fc.property(ipv4Spelling(), urlTail, ({ truth, text }, tail) => {
          expect(parsedHost(text), `the parser reads ${JSON.stringify(text)} as ${formatIPv4(truth)}`).toBe(formatIPv4(truth));
          const result = checkUrl(`https://${text}${tail.text}`);
          if (isPublicIPv4(truth)) expect(result).toStrictEqual({ ok: true, href: `https://${formatIPv4(truth)}${tail.href}` });
          else expect(result).toStrictEqual({ ok: false, problem: NOT_PUBLIC });
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'a bracketed IPv6 literal in any spelling is accepted iff its address (or the IPv4 it embeds) is public, and stored canonically',
    () => {
      holds(
        fc.property(ipv6Spelling(), urlTail, ({ truth, text }, tail) => {
          const canonical = `[${formatIPv6(truth)}]`;
          expect(parsedHost(text), `the parser reads ${text} as ${canonical}`).toBe(canonical);
          const result = checkUrl(`https://${text}${tail.text}`);
          if (isPublicIPv6(truth)) expect(result).toStrictEqual({ ok: true, href: `https://${canonical}${tail.href}` });
          else expect(result).toStrictEqual({ ok: false, problem: NOT_PUBLIC });
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'a host ending in a number that is no valid IPv4 address is refused, never handed to DNS as a name',
    () => {
      holds(
        fc.property(invalidIpv4Host, urlTail, (text, tail) => {
          expect(checkUrl(`https://${text}${tail.text}`).ok).toBe(false);
        }),
      );
    },
    TIMEOUT_MS,
  );
});

describe('checkUrl on what surrounds the host (docs/api.md 5.1 rules 1-3)', () => {
  it(
    'userinfo naming a user or a password is refused, on hosts that are accepted without it',
    () => {
      holds(
        fc.property(acceptedHost, userinfo, urlTail, (host, info, tail) => {
          expect(checkUrl(`https://${host.text}${tail.text}`)).toStrictEqual(accepted(host, `https://${host.host}${tail.href}`));
          expect(checkUrl(`https://${info}${host.text}${tail.text}`)).toStrictEqual({ ok: false, problem: USERINFO });
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'a port is accepted iff it is 1-65535 (or empty), and the href keeps it unless it is the default 443',
    () => {
      holds(
        fc.property(acceptedHost, port, urlTail, (host, { text, value }, tail) => {
          const result = checkUrl(`https://${host.text}:${text}${tail.text}`);
          if (value === undefined || (value >= 1 && value <= 65535)) {
            const shown = value === undefined || value === 443 ? '' : `:${value}`;
            expect(result).toStrictEqual(accepted(host, `https://${host.host}${shown}${tail.href}`));
          } else {
            expect(result.ok).toBe(false);
          }
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'only the https scheme (in any letter case, with any slashes the parser allows) is accepted',
    () => {
      holds(
        fc.property(scheme, schemeSeparator, acceptedHost, urlTail, (name, separator, host, tail) => {
          const result = checkUrl(`${name}:${separator}${host.text}${tail.text}`);
          if (name.toLowerCase() === 'https') expect(result).toStrictEqual(accepted(host, `https://${host.host}${tail.href}`));
          else expect(result.ok).toBe(false);
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'a whitespace, control, format or separator character anywhere refuses a URL that is accepted without it',
    () => {
      holds(
        fc.property(
          acceptedHost,
          urlTail,
          fc.array(fc.tuple(invisibleChar, fc.nat()), { minLength: 1, maxLength: 3 }),
          (host, tail, insertions) => {
            const clean = `https://${host.text}${tail.text}`;
            expect(checkUrl(clean).ok).toBe(true);
            const dirty = insertions.reduce((url, [ch, at]) => {
              const index = at % (url.length + 1);
              return url.slice(0, index) + ch + url.slice(index);
            }, clean);
            expect(checkUrl(dirty).ok).toBe(false);
          },
        ),
      );
    },
    TIMEOUT_MS,
  );
});

describe('checkUrl on host names (docs/api.md 5.1 rule 4)', () => {
  it(
    'a name with a dot and no special-use suffix is accepted and handed to DNS as its lower-case ASCII hostname',
    () => {
      holds(
        fc.property(allowedName, urlTail, ({ truth, text }, tail) => {
          expect(parsedHost(text), `the parser reads ${JSON.stringify(text)} as ${truth}`).toBe(truth);
          expect(checkUrl(`https://${text}${tail.text}`)).toStrictEqual({
            ok: true,
            href: `https://${truth}${tail.href}`,
            hostname: truth,
          });
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    'special-use names, localhost and single labels are refused, in any letter case, spelling, with or without one trailing dot',
    () => {
      holds(
        fc.property(refusedName, urlTail, ({ truth, text }, tail) => {
          expect(parsedHost(text), `the parser reads ${JSON.stringify(text)} as ${truth}`).toBe(truth);
          expect(checkUrl(`https://${text}${tail.text}`).ok).toBe(false);
        }),
      );
    },
    TIMEOUT_MS,
  );
});
