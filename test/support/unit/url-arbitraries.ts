/**
 * fast-check generators for the URL property tests. Every generator keeps the ground truth
 * (the address or name it meant) next to the text it produced, so that the property can ask
 * the oracle about the truth and compare production's verdict on the text.
 */
import fc from 'fast-check';
import {
  IPV4_NOT_PUBLIC,
  IPV6_EMBEDDING,
  IPV6_GLOBAL_UNICAST,
  IPV6_NAMED_NOT_PUBLIC,
  IPV6_NOT_PUBLIC_IN_GLOBAL,
  type Cidr6,
  formatIPv4,
  formatIPv6,
  ipv6Pieces,
  isPublicIPv4,
  isPublicIPv6,
} from './public-address.oracle';

const MAX_V4 = 0xffffffff;
const MAX_V6 = (1n << 128n) - 1n;

// ---------------------------------------------------------------------------------------------
// Character-level disguises that the WHATWG host parser undoes: percent-decoding first, then
// UTS #46 mapping (full-width forms to ASCII, ideographic full stops to '.', lowercasing).

/**
 * Code points UTS #46 maps to nothing, so the host parser drops them silently: combining and
 * variation-selector marks (\p{Mn}, allowed through rule 1 raw) and \p{Cf} characters, which
 * rule 1 refuses raw, so percent-encoded here (the host is percent-decoded before mapping).
 */
export const IGNORED_IN_HOSTS = [
  '\u034F',
  '\uFE00',
  '\uFE0F',
  '\u180B',
  '\u180F',
  '\u{E0100}',
  '%C2%AD',
  '%E2%80%8B',
  '%E2%81%A0',
  '%ef%bb%bf',
];

/** What to do with one character of a host spelling; most characters stay plain. */
type CharDisguise = {
  readonly wide: 0 | 1 | 2 | 3; // a full-width or ideographic form (the variant matters for dots)
  readonly percent: boolean; // percent-encode its UTF-8 bytes
  readonly lowerHex: boolean; // ... with lower-case hex digits
  readonly ignored: number; // insert IGNORED_IN_HOSTS[ignored - 1] before it (0: none)
};

const PLAIN: CharDisguise = { wide: 0, percent: false, lowerHex: false, ignored: 0 };

const charDisguise: fc.Arbitrary<CharDisguise> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(PLAIN) },
  {
    weight: 4,
    arbitrary: fc.record({
      wide: fc.constantFrom<0 | 1 | 2 | 3>(0, 1, 2, 3),
      percent: fc.boolean(),
      lowerHex: fc.boolean(),
      ignored: fc.oneof(
        { weight: 4, arbitrary: fc.constant(0) },
        { weight: 1, arbitrary: fc.integer({ min: 1, max: IGNORED_IN_HOSTS.length }) },
      ),
    }),
  },
);

/** Per-position disguises; positions past the end of the array stay plain. */
export const disguises = fc.array(charDisguise, { maxLength: 48 });

/** The full-width (or ideographic) character that UTS #46 maps back to `ch`, if any. */
function widen(ch: string, variant: 1 | 2 | 3): string {
  if (ch === '.') return ['\uFF0E', '\u3002', '\uFF61'][variant - 1]; // full-width, ideographic, half-width ideographic
  if (ch === '-') return '\uFF0D';
  const code = ch.charCodeAt(0);
  if (ch >= '0' && ch <= '9') return String.fromCharCode(0xff10 + code - 0x30);
  if (ch >= 'a' && ch <= 'z') return String.fromCharCode(0xff41 + code - 0x61);
  if (ch >= 'A' && ch <= 'Z') return String.fromCharCode(0xff21 + code - 0x41);
  return ch;
}

function percentEncode(ch: string, lowerHex: boolean): string {
  const hex = [...Buffer.from(ch, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
  return lowerHex ? hex.toLowerCase() : hex.toUpperCase();
}

/** Apply the disguises to an ASCII host spelling, position by position. */
export function disguise(text: string, plan: readonly CharDisguise[]): string {
  return [...text]
    .map((ch, index) => {
      const step = plan[index] ?? PLAIN;
      const shown = step.wide === 0 ? ch : widen(ch, step.wide);
      const ignored = step.ignored === 0 ? '' : IGNORED_IN_HOSTS[step.ignored - 1];
      return ignored + (step.percent ? percentEncode(shown, step.lowerHex) : shown);
    })
    .join('');
}

/** Upper-case the letters whose bit is set in `mask` (bit i for letter position i mod 31). */
const applyCase = (text: string, mask: number) =>
  [...text].map((ch, index) => ((mask >>> (index % 31)) & 1 ? ch.toUpperCase() : ch)).join('');

// ---------------------------------------------------------------------------------------------
// IPv4 addresses (ground truth: an unsigned 32-bit integer)

const aroundEdges4 = (first: number, last: number) => [first - 1, first, first + 1, last - 1, last, last + 1];

/** First/last address of every range of docs/api.md 5.2, and their neighbours. */
export const IPV4_EDGES: readonly number[] = [
  ...new Set([0, MAX_V4, ...IPV4_NOT_PUBLIC.flatMap((range) => aroundEdges4(range.first, range.last))]),
]
  .filter((address) => address >= 0 && address <= MAX_V4)
  .sort((a, b) => a - b);

export const ipv4Address: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: 0, max: MAX_V4 }), // uniform over the whole space
  fc.constantFrom(...IPV4_EDGES), // a range boundary or one off it
  fc.constantFrom(...IPV4_NOT_PUBLIC).chain((range) => fc.integer({ min: range.first, max: range.last })), // inside one range
);

type Radix = 'dec' | 'oct' | 'hex';

/** How one part of an IPv4 spelling is written. */
type PartStyle = { readonly radix: Radix; readonly zeros: number; readonly caseMask: number; readonly bareHexZero: boolean };

const partStyle: fc.Arbitrary<PartStyle> = fc.record({
  radix: fc.constantFrom<Radix>('dec', 'oct', 'hex'),
  zeros: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 20 })), // extra leading zeros
  caseMask: fc.nat(), // which of 0x/hex digits are upper case
  bareHexZero: fc.boolean(), // write zero as a bare "0x"
});

function writePart(value: number, style: PartStyle): string {
  switch (style.radix) {
    case 'dec':
      return value.toString(10); // a leading zero would make it octal
    case 'oct':
      return '0'.repeat(1 + style.zeros) + (value === 0 ? '' : value.toString(8));
    case 'hex':
      return applyCase(`0x${'0'.repeat(style.zeros)}${value === 0 && style.bareHexZero ? '' : value.toString(16)}`, style.caseMask);
  }
}

/**
 * The `count` numbers the WHATWG IPv4 parser reads for `address` written with that many parts:
 * a.b.c.d (bytes), a.b.c (last part 16 bits), a.b (last part 24 bits), a (32 bits).
 */
export function ipv4PartValues(address: number, count: 1 | 2 | 3 | 4): number[] {
  const bytes = [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256);
  const lastBits = 8 * (5 - count);
  return [...bytes.slice(0, count - 1), address % 2 ** lastBits];
}

export type Spelled<T> = { readonly truth: T; readonly text: string };

/** Every spelling of an IPv4 host the WHATWG parser accepts (for a given address). */
export const ipv4Spelling = (address: fc.Arbitrary<number> = ipv4Address): fc.Arbitrary<Spelled<number>> =>
  fc
    .record({
      address,
      count: fc.constantFrom<1 | 2 | 3 | 4>(1, 2, 3, 4),
      styles: fc.tuple(partStyle, partStyle, partStyle, partStyle),
      trailingDot: fc.boolean(),
      plan: disguises,
    })
    .map(({ address: truth, count, styles, trailingDot, plan }) => {
      const ascii = ipv4PartValues(truth, count)
        .map((value, index) => writePart(value, styles[index]))
        .join('.');
      return { truth, text: disguise(ascii + (trailingDot ? '.' : ''), plan) };
    });

/**
 * Numeric hosts the WHATWG parser must reject (a part too large for its place, or more than
 * four parts): a URL "ending in a number" is an IPv4 address or nothing, never a name.
 */
export const invalidIpv4Host: fc.Arbitrary<string> = fc
  .oneof(
    // one leading part above 255
    fc
      .record({
        values: fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 2, maxLength: 4 }),
        at: fc.nat(),
        big: fc.oneof(fc.integer({ min: 256, max: 300 }), fc.integer({ min: 256, max: MAX_V4 })),
      })
      .map(({ values, at, big }) => values.map((value, index) => (index === at % (values.length - 1) ? big : value))),
    // last part too large for the bits left to it
    fc
      .record({
        leading: fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 3 }),
        over: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 2 ** 40 })),
      })
      .map(({ leading, over }) => [...leading, 2 ** (8 * (4 - leading.length)) + over]),
    // five or more parts
    fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 5, maxLength: 7 }),
  )
  .chain((values) =>
    fc
      .record({ styles: fc.array(partStyle, { minLength: values.length, maxLength: values.length }), trailingDot: fc.boolean() })
      .map(({ styles, trailingDot }) => values.map((value, index) => writePart(value, styles[index])).join('.') + (trailingDot ? '.' : '')),
  );

// ---------------------------------------------------------------------------------------------
// IPv6 addresses (ground truth: an unsigned 128-bit integer)

export const IPV6_RANGES: readonly Cidr6[] = [
  ...IPV6_EMBEDDING,
  IPV6_GLOBAL_UNICAST,
  ...IPV6_NOT_PUBLIC_IN_GLOBAL,
  ...IPV6_NAMED_NOT_PUBLIC,
];

/** First/last address of every IPv6 range named in docs/api.md 5.2, and their neighbours. */
export const IPV6_EDGES: readonly bigint[] = [
  ...new Set([0n, 1n, MAX_V6, ...IPV6_RANGES.flatMap((r) => [r.first - 1n, r.first, r.first + 1n, r.last - 1n, r.last, r.last + 1n])]),
].filter((address) => address >= 0n && address <= MAX_V6);

/** An address inside `range`, biased (by fast-check) toward small and extreme host bits. */
const insideRange6 = (range: Cidr6) => fc.bigInt({ min: 0n, max: range.last - range.first }).map((offset) => range.first + offset);

/** An IPv6 address embedding a chosen IPv4 address (mapped, NAT64 or 6to4). */
export const ipv6Embedding: fc.Arbitrary<bigint> = fc
  .record({
    form: fc.constantFrom(...IPV6_EMBEDDING),
    ipv4: ipv4Address,
    rest: fc.bigInt({ min: 0n, max: (1n << 80n) - 1n }), // 6to4 only: the bits after the IPv4 address
  })
  .map(({ form, ipv4, rest }) => {
    const shift = BigInt(127 - form.to);
    return form.first | (BigInt(ipv4) << shift) | (form.to === 127 ? 0n : rest & ((1n << shift) - 1n));
  });

export const ipv6Address: fc.Arbitrary<bigint> = fc.oneof(
  fc.bigInt({ min: 0n, max: MAX_V6 }), // uniform over the whole space
  fc.constantFrom(...IPV6_EDGES), // a range boundary or one off it
  fc.constantFrom(...IPV6_RANGES).chain(insideRange6), // inside one named range
  ipv6Embedding, // mapped / NAT64 / 6to4 with a public or private IPv4 inside
);

/** How an IPv6 address is written. */
type Ipv6Style = {
  readonly dottedTail: boolean; // last 32 bits as a.b.c.d
  readonly compress: boolean; // use '::' for one run of zero pieces (any run, not only the longest)
  readonly runPick: number;
  readonly zeros: readonly number[]; // leading zeros per piece, up to four digits in all
  readonly caseMask: number;
};

const ipv6Style: fc.Arbitrary<Ipv6Style> = fc.record({
  dottedTail: fc.boolean(),
  compress: fc.boolean(),
  runPick: fc.nat(),
  zeros: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
  caseMask: fc.nat(),
});

/** All runs [start, end) of one or more zero pieces inside pieces[0..limit). */
function zeroRuns(pieces: readonly number[], limit: number): [number, number][] {
  const runs: [number, number][] = [];
  for (let start = 0; start < limit; start++) {
    for (let end = start + 1; end <= limit && pieces[end - 1] === 0; end++) runs.push([start, end]);
  }
  return runs;
}

export function writeIPv6(address: bigint, style: Ipv6Style): string {
  const pieces = ipv6Pieces(address);
  const hexCount = style.dottedTail ? 6 : 8;
  const items = pieces.slice(0, hexCount).map((piece, index) => {
    const hex = piece.toString(16);
    return applyCase('0'.repeat(Math.min(style.zeros[index], 4 - hex.length)) + hex, style.caseMask >>> index);
  });
  if (style.dottedTail) items.push(formatIPv4(Number(address & 0xffffffffn)));
  const runs = zeroRuns(pieces, hexCount);
  if (!style.compress || runs.length === 0) return items.join(':');
  const [start, end] = runs[style.runPick % runs.length];
  return `${items.slice(0, start).join(':')}::${items.slice(end).join(':')}`;
}

/** Every spelling of a bracketed IPv6 host the WHATWG parser accepts (brackets included). */
export const ipv6Spelling = (address: fc.Arbitrary<bigint> = ipv6Address): fc.Arbitrary<Spelled<bigint>> =>
  fc.tuple(address, ipv6Style).map(([truth, style]) => ({ truth, text: `[${writeIPv6(truth, style)}]` }));

// ---------------------------------------------------------------------------------------------
// Host names (ground truth: the lower-case ASCII name, with its trailing dot if any)

/** docs/api.md 5.1 rule 4, copied here rather than imported from production. */
export const SPECIAL_USE_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.onion', '.invalid', '.alt'] as const;

/** Rule 4 for a lower-case ASCII name: may it go to DNS at all? */
export function isAllowedName(name: string): boolean {
  const bare = name.endsWith('.') ? name.slice(0, -1) : name;
  return bare !== 'localhost' && bare.includes('.') && !SPECIAL_USE_SUFFIXES.some((suffix) => bare.endsWith(suffix));
}

/** A DNS label; never an A-label ('xn--' would be punycode-decoded and may be refused). */
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,12}[a-z0-9])?$/).filter((text) => !text.startsWith('xn--'));
/** The last label starts with a letter: a name "ending in a number" would be parsed as IPv4. */
const lastLabel = fc.stringMatching(/^[a-z](?:[a-z0-9-]{0,8}[a-z0-9])?$/).filter((text) => !text.startsWith('xn--'));

/** Write a lower-case ASCII name in mixed case and with full-width / percent-encoded characters. */
const spellName = (name: fc.Arbitrary<string>): fc.Arbitrary<Spelled<string>> =>
  fc.record({ name, caseMask: fc.nat(), plan: disguises }).map(({ name: truth, caseMask, plan }) => ({
    truth,
    text: disguise(applyCase(truth, caseMask), plan),
  }));

/** Names that rule 4 lets through to DNS: two or more labels, no special-use suffix. */
export const allowedName: fc.Arbitrary<Spelled<string>> = spellName(
  fc
    .tuple(fc.array(label, { minLength: 1, maxLength: 4 }), lastLabel, fc.boolean())
    .map(([labels, last, dot]) => `${[...labels, last].join('.')}${dot ? '.' : ''}`)
    .filter(isAllowedName),
);

/** Names rule 4 refuses: special-use suffixes, localhost, single labels (each with or without one trailing dot). */
export const refusedName: fc.Arbitrary<Spelled<string>> = spellName(
  fc
    .tuple(
      fc.oneof(
        fc
          .tuple(fc.array(label, { minLength: 1, maxLength: 3 }), fc.constantFrom(...SPECIAL_USE_SUFFIXES))
          .map(([labels, suffix]) => labels.join('.') + suffix),
        fc.constant('localhost'),
        lastLabel, // a single label
      ),
      fc.boolean(),
    )
    .map(([name, dot]) => name + (dot ? '.' : '')),
);

// ---------------------------------------------------------------------------------------------
// Whole URLs and their pieces

/** A host that production must accept, with the host its href must carry. */
export type AcceptedHost = { readonly text: string; readonly host: string; readonly kind: 'ipv4' | 'ipv6' | 'name' };

export const acceptedHost: fc.Arbitrary<AcceptedHost> = fc.oneof(
  ipv4Spelling(ipv4Address.filter(isPublicIPv4)).map(({ truth, text }) => ({ text, host: formatIPv4(truth), kind: 'ipv4' as const })),
  ipv6Spelling(ipv6Address.filter(isPublicIPv6)).map(({ truth, text }) => ({
    text,
    host: `[${formatIPv6(truth)}]`,
    kind: 'ipv6' as const,
  })),
  allowedName.map(({ truth, text }) => ({ text, host: truth, kind: 'name' as const })),
);

/** What follows the host, and what the href shows for it (only characters the parser keeps as they are). */
export const urlTail: fc.Arbitrary<{ readonly text: string; readonly href: string }> = fc
  .constantFrom('', '/', '/hook', '/a/b/c', '?q=1', '#frag', '/p?q=1&r=2#f', '/x.json')
  .map((text) => ({ text, href: text.startsWith('/') ? text : `/${text}` }));

/** A port number as written (with leading zeros), and its value. */
const numericPort = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 1, max: 65535 }),
      fc.constantFrom(0, 1, 80, 443, 8443, 65534, 65535, 65536, 65537, 99999, 4294967296),
      fc.integer({ min: 65536, max: 10_000_000 }),
    ),
    fc.integer({ min: 0, max: 3 }), // leading zeros
  )
  .map(([value, zeros]) => ({ text: '0'.repeat(zeros) + value.toString(), value: value as number | undefined }));

/** A port as written, and the number it means (undefined when empty: "https://host:/" has no port). */
export const port: fc.Arbitrary<{ readonly text: string; readonly value: number | undefined }> = fc.oneof(
  { weight: 6, arbitrary: numericPort },
  { weight: 1, arbitrary: fc.constant({ text: '', value: undefined }) },
);

/** Userinfo that names a user or a password (empty userinfo is dropped by the parser). */
export const userinfo: fc.Arbitrary<string> = fc
  .tuple(fc.stringMatching(/^[A-Za-z0-9._~%-]{0,8}$/), fc.option(fc.stringMatching(/^[A-Za-z0-9._~%-]{0,8}$/), { nil: undefined }))
  .map(([user, pass]) => ({ user: user.replace(/%/g, '%25'), pass: pass?.replace(/%/g, '%25') }))
  .filter(({ user, pass }) => user !== '' || (pass ?? '') !== '')
  .map(({ user, pass }) => `${user}${pass === undefined ? '' : `:${pass}`}@`);

/** A scheme: https in any case, or something else (common or random). */
export const scheme: fc.Arbitrary<string> = fc.oneof(
  fc.nat().map((mask) => applyCase('https', mask)),
  fc.constantFrom(
    'http',
    'HTTP',
    'wss',
    'ws',
    'ftp',
    'file',
    'data',
    'javascript',
    'blob',
    'gopher',
    'httpss',
    'htps',
    'https-',
    'https+x',
    'xhttps',
  ),
  fc.stringMatching(/^[a-z][a-z0-9+.-]{0,9}$/),
);

/** What may follow "scheme:" and still reach the authority of a special scheme. */
export const schemeSeparator: fc.Arbitrary<string> = fc.constantFrom('//', '/', '', '///', '\\\\', '/\\', '\\/');

/** A Unicode \p{C}, \p{Z} or \s character (docs/api.md 5.1 rule 1), biased toward the usual suspects. */
const INVISIBLE_CLASS = /^[\p{C}\p{Z}\s]$/u;
export const invisibleChar: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\t',
    '\n',
    '\r',
    ' ',
    '\f',
    '\v',
    '\0',
    '\x1f',
    '\x7f',
    '\x80',
    '\x85',
    '\x9f',
    '\xa0',
    '\xad',
    '\u061c', // ARABIC LETTER MARK (Cf)
    '\u1680',
    '\u180e',
    '\u2000',
    '\u200a',
    '\u200b',
    '\u200c',
    '\u200d',
    '\u200e',
    '\u200f',
    '\u2028',
    '\u2029',
    '\u202a',
    '\u202e',
    '\u202f',
    '\u205f',
    '\u2060',
    '\u2064',
    '\u2066',
    '\u2069',
    '\u3000',
    '\ufeff',
    '\ufff9',
    '\ufffb',
    '\ud800',
    '\udfff',
    '\ue000',
    '\uf8ff',
    '\u0378',
    '\u{e0001}',
    '\u{e0020}',
    '\u{e007f}',
    '\u{f0000}',
    '\u{10ffff}',
    '\u{1bca0}',
    '\u{1d173}',
  ),
  fc
    .integer({ min: 0, max: 0x10ffff })
    .map((code) => String.fromCodePoint(code))
    .filter((ch) => INVISIBLE_CLASS.test(ch)),
);
