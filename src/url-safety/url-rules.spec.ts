import { describe, expect, it } from 'vitest';
import { AddressPolicy } from './public-address';
import { checkUrl, portOf } from './url-rules';

/**
 * docs/api.md 5.1 rules 1-5. The WHATWG parser normalizes IP literals, so every spelling is judged by
 * the address it means, and the stored value is the parser's href. Messages are written out
 * here (not imported) so that a changed message is a visible change of the contract.
 */

const NOT_PUBLIC = 'must not point to a private, loopback or reserved address';
const TOO_LONG = 'must be at most 2048 characters';
const TOO_LONG_NORMALIZED = 'must be at most 2048 characters once normalized';
const INVISIBLE = 'must not contain whitespace, control or invisible characters';
const NOT_ABSOLUTE = 'must be an absolute URL';
const NOT_HTTPS = 'must use https';
const USERINFO = 'must not contain a username or password';
const BAD_PORT = 'port must be between 1 and 65535';
const LOCALHOST = 'must not point to localhost';
const NOT_FQDN = 'host must be a fully qualified domain name';
const SPECIAL_USE = 'host must not be a special-use name';

const refused = (problem: string) => ({ ok: false, problem });
/** An accepted IP literal: judged here, nothing to resolve, so no `hostname` key at all. */
const acceptedLiteral = (href: string) => ({ ok: true, href });
/** An accepted name: `hostname` is what rule 6 resolves. */
const acceptedName = (href: string, hostname: string) => ({ ok: true, href, hostname });

describe('checkUrl rule 5: every spelling of a loopback IPv4 literal is refused', () => {
  it.each([
    ['https://127.0.0.1/', 'dotted decimal'],
    ['https://2130706433/', 'one decimal integer'],
    ['https://0177.0.0.1/', 'octal first part'],
    ['https://017700000001/', 'one octal integer'],
    ['https://0000000177.0.0.1/', 'octal with many leading zeros'],
    ['https://0x7f.0.0.1/', 'hex first part'],
    ['https://0X7F.0.0.1/', 'uppercase hex first part'],
    ['https://0x7f000001/', 'one hex integer'],
    ['https://0X7F000001/', 'one uppercase hex integer'],
    ['https://0x00007f.0.0.1/', 'hex with leading zeros'],
    ['https://127.1/', 'short form a.b'],
    ['https://127.0.1/', 'short form a.b.c'],
    ['https://127.0.0.01/', 'leading zero in the last part'],
    ['https://%31%32%37.0.0.1/', 'percent-encoded digits'],
    ['https://%30x7f.1/', 'percent-encoded hex prefix, short form'],
    ['https://１２７．０．０．１/', 'full-width digits and full-width full stops'],
    ['https://127。0。0。1/', 'ideographic full stops'],
    ['https://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/', 'percent-encoded full-width digits'],
    ['https://０ｘ７ｆ.0.0.1/', 'full-width hex'],
    ['https://0x7f.1/', 'mixed: hex short form'],
    ['https://0177.0x0.1/', 'mixed: octal, hex and decimal'],
    ['https://0x7f.00.0.1/', 'mixed: hex and octal zero'],
    ['https://127.0.0.0x1/', 'mixed: hex last part'],
    ['https://127.0.0.1./', 'trailing dot'],
    ['https://127.0.0.1%2e/', 'percent-encoded trailing dot'],
    ['https://0x7f.0.0.1:8443/p?q#f', 'hex with port, path, query and fragment'],
  ])('%s (%s) is refused as not public', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_PUBLIC));
  });
});

describe('checkUrl rule 5: other non-public IPv4 literals in disguise are refused', () => {
  it.each([
    ['https://2852039166/', 'cloud metadata 169.254.169.254 as a decimal integer'],
    ['https://0xa9.0xfe.0xa9.0xfe/', 'cloud metadata 169.254.169.254 in dotted hex'],
    ['https://169.254.43518/', 'cloud metadata 169.254.169.254 in short form'],
    ['https://0xc0a80101/', '192.168.1.1 as a hex integer'],
    ['https://167772161/', '10.0.0.1 as a decimal integer'],
    ['https://012.0.0.1/', '10.0.0.1 with an octal first part'],
    ['https://0/', '0.0.0.0 as one zero'],
    ['https://0x/', '0.0.0.0 as a bare hex prefix'],
    ['https://1/', '0.0.0.1 as one integer'],
    ['https://4294967295/', '255.255.255.255 as a decimal integer'],
    ['https://100.64.0.0/', 'first of 100.64/10'],
    ['https://100.127.255.255/', 'last of 100.64/10'],
    ['https://192.0.2.1/', 'documentation range'],
  ])('%s (%s) is refused as not public', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_PUBLIC));
  });
});

describe('checkUrl rule 5: every spelling of a public IPv4 literal is accepted with its normalized href', () => {
  it.each([
    ['https://8.8.8.8/', 'https://8.8.8.8/', 'dotted decimal'],
    ['https://134744072/', 'https://8.8.8.8/', 'one decimal integer'],
    ['https://0x8.0x8.0x8.0x8/', 'https://8.8.8.8/', 'dotted hex'],
    ['https://0x08080808/', 'https://8.8.8.8/', 'one hex integer'],
    ['https://010.010.010.010/', 'https://8.8.8.8/', 'dotted octal (010 is 8)'],
    ['https://8.8.2056/', 'https://8.8.8.8/', 'short form a.b.c'],
    ['https://8.526344/', 'https://8.8.8.8/', 'short form a.b'],
    ['https://%38.8.8.8/', 'https://8.8.8.8/', 'percent-encoded digit'],
    ['https://８.８.８.８/', 'https://8.8.8.8/', 'full-width digits'],
    ['https://8。8。8。8/', 'https://8.8.8.8/', 'ideographic full stops'],
    ['https://8.8.8.8./', 'https://8.8.8.8/', 'trailing dot'],
    ['https://134744072:8443/hook?x=1#f', 'https://8.8.8.8:8443/hook?x=1#f', 'decimal integer with port, path, query and fragment'],
    ['https://100.63.255.255/', 'https://100.63.255.255/', 'just below 100.64/10'],
    ['https://100.128.0.0/', 'https://100.128.0.0/', 'just above 100.64/10'],
  ])('%s is accepted as %s (%s)', (input, href) => {
    expect(checkUrl(input)).toStrictEqual(acceptedLiteral(href));
  });

  it('an accepted IP literal carries no hostname to resolve', () => {
    const result = checkUrl('https://134744072/');
    expect(Object.keys(result).sort()).toEqual(['href', 'ok']);
  });

  it.each([
    ['https://256.0.0.1/', 'a part above 255'],
    ['https://4294967296/', 'an integer above 2^32-1'],
    ['https://1.2.3.4.5/', 'five numeric parts'],
    ['https://09.8.8.8/', 'an invalid octal part'],
    ['https://8.8.8.08/', 'an invalid octal last part'],
  ])('%s (%s) does not parse and is refused', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_ABSOLUTE));
  });
});

describe('checkUrl rule 5: bracketed IPv6 literals are judged by the address they mean', () => {
  it.each([
    ['https://[::1]/', 'loopback'],
    ['https://[::]/', 'unspecified'],
    ['https://[::ffff:127.0.0.1]/', 'mapped 127.0.0.1 (normalized to ::ffff:7f00:1)'],
    ['https://[::FFFF:7F00:1]/', 'mapped 127.0.0.1 in uppercase hex'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/', 'mapped 127.0.0.1 uncompressed'],
    ['https://[::ffff:169.254.169.254]/', 'mapped cloud metadata address'],
    ['https://[::127.0.0.1]/', 'IPv4-compatible 127.0.0.1'],
    ['https://[::8.8.8.8]/', 'IPv4-compatible 8.8.8.8 (::/8, normalized to ::808:808)'],
    ['https://[64:ff9b::10.0.0.1]/', 'NAT64 of 10.0.0.1'],
    ['https://[64:ff9b::127.0.0.1]/', 'NAT64 of 127.0.0.1'],
    ['https://[64:ff9b:1::1]/', 'local-use NAT64 64:ff9b:1::/48'],
    ['https://[2002:0a00:0001::]/', '6to4 of 10.0.0.1'],
    ['https://[2002:7f00:1::]/', '6to4 of 127.0.0.1'],
    ['https://[fe80::1]/', 'link-local'],
    ['https://[FE80::1]/', 'link-local in uppercase hex'],
    ['https://[fc00::1]/', 'unique local'],
    ['https://[FD12:3456::1]/', 'unique local in uppercase hex'],
    ['https://[ff02::1]/', 'multicast'],
    ['https://[2001:db8::1]/', 'documentation'],
    ['https://[3fff::1]/', 'documentation 3fff::/20'],
    ['https://[2001::1]/', 'Teredo, 2001::/23'],
    ['https://[::ffff:127.0.0.1]:8443/x', 'mapped 127.0.0.1 with port and path'],
  ])('%s (%s) is refused as not public', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_PUBLIC));
  });

  it.each([
    ['https://[::ffff:8.8.8.8]/', 'https://[::ffff:808:808]/', 'mapped 8.8.8.8'],
    ['https://[64:ff9b::8.8.8.8]/', 'https://[64:ff9b::808:808]/', 'NAT64 of 8.8.8.8'],
    ['https://[2002:0808:0808::]/', 'https://[2002:808:808::]/', '6to4 of 8.8.8.8'],
    ['https://[2001:4860:4860::8888]/', 'https://[2001:4860:4860::8888]/', 'global unicast'],
    ['https://[2001:4860:4860:0:0:0:0:8888]/', 'https://[2001:4860:4860::8888]/', 'global unicast uncompressed'],
    ['https://[2606:4700:4700::AbCd]/', 'https://[2606:4700:4700::abcd]/', 'global unicast in mixed-case hex'],
    ['https://[2001:4860:4860::8888]:443/hook', 'https://[2001:4860:4860::8888]/hook', 'global unicast with the default port'],
  ])('%s is accepted as %s (%s)', (input, href) => {
    expect(checkUrl(input)).toStrictEqual(acceptedLiteral(href));
  });

  it.each([
    ['https://[fe80::1%25eth0]/', 'link-local with a percent-encoded zone id'],
    ['https://[2001:4860:4860::8888%eth0]/', 'public address with a zone id'],
    ['https://[::1/', 'unclosed bracket'],
    ['https://[127.0.0.1]/', 'bracketed IPv4'],
  ])('%s (%s) does not parse and is refused', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_ABSOLUTE));
  });
});

describe('checkUrl rule 4: special-use and single-label host names', () => {
  const specialNames: readonly (readonly [host: string, problem: string])[] = [
    ['localhost', LOCALHOST],
    ['LOCALHOST', LOCALHOST],
    ['foo.localhost', SPECIAL_USE],
    ['a.local', SPECIAL_USE],
    ['a.internal', SPECIAL_USE],
    ['a.home.arpa', SPECIAL_USE],
    ['a.onion', SPECIAL_USE],
    ['a.invalid', SPECIAL_USE],
    ['a.alt', SPECIAL_USE],
    ['deep.sub.a.internal', SPECIAL_USE],
    ['A.LOCAL', SPECIAL_USE],
  ];

  it.each(
    specialNames.flatMap(([host, problem]) => [
      { url: `https://${host}/`, problem },
      { url: `https://${host}./`, problem },
    ]),
  )('$url is refused: $problem', ({ url, problem }) => {
    expect(checkUrl(url)).toStrictEqual(refused(problem));
  });

  it.each([
    ['https://ｌｏｃａｌｈｏｓｔ/', LOCALHOST, 'full-width localhost'],
    ['https://local%68ost/', LOCALHOST, 'percent-encoded letter'],
    ['https://%6c%6f%63%61%6c%68%6f%73%74/', LOCALHOST, 'fully percent-encoded'],
    ['https://localhost%2e/', LOCALHOST, 'percent-encoded trailing dot'],
    ['https://localhost。/', LOCALHOST, 'ideographic full stop as trailing dot'],
    ['https://LocalHost:8443/x', LOCALHOST, 'mixed case with port and path'],
    ['https://a%2elocal/', SPECIAL_USE, 'percent-encoded dot before local'],
    ['https://a.ＬＯＣＡＬ/', SPECIAL_USE, 'full-width LOCAL'],
    ['https://a。internal/', SPECIAL_USE, 'ideographic full stop before internal'],
  ])('%s is refused: %s (%s)', (input, problem) => {
    expect(checkUrl(input)).toStrictEqual(refused(problem));
  });

  it.each([
    ['https://intranet/', 'single label'],
    ['https://intranet./', 'single label with a trailing dot'],
    ['https://INTRANET/', 'uppercase single label'],
    ['https://com/', 'a bare top-level domain'],
    ['https://./', 'a lone dot'],
  ])('%s (%s) is refused as not fully qualified', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_FQDN));
  });

  it.each([
    ['https://example.com/', 'https://example.com/', 'example.com', 'a plain name'],
    ['https://example.com./', 'https://example.com./', 'example.com.', 'one trailing dot, removed only for the checks'],
    ['https://Example.COM/Path', 'https://example.com/Path', 'example.com', 'uppercase host, path case kept'],
    ['https://localhost.example.com/', 'https://localhost.example.com/', 'localhost.example.com', 'localhost as a first label'],
    ['https://internal.example.com/', 'https://internal.example.com/', 'internal.example.com', 'internal as a first label'],
    ['https://local.example.com/', 'https://local.example.com/', 'local.example.com', 'local as a first label'],
    ['https://a.local.example.com/', 'https://a.local.example.com/', 'a.local.example.com', 'local as a middle label'],
    ['https://mylocalhost.com/', 'https://mylocalhost.com/', 'mylocalhost.com', 'localhost inside a label'],
    ['https://x.notlocal/', 'https://x.notlocal/', 'x.notlocal', 'a label merely ending in local'],
    ['https://x.myonion/', 'https://x.myonion/', 'x.myonion', 'a label merely ending in onion'],
    ['https://x.salt/', 'https://x.salt/', 'x.salt', 'a label merely ending in alt'],
    ['https://bücher.example.com/', 'https://xn--bcher-kva.example.com/', 'xn--bcher-kva.example.com', 'IDN, resolved as punycode'],
    ['https://ｅｘａｍｐｌｅ.com/', 'https://example.com/', 'example.com', 'full-width letters'],
    ['https://ex%41mple.com/', 'https://example.com/', 'example.com', 'percent-encoded letter'],
  ])('%s is accepted as %s with hostname %s to resolve (%s)', (input, href, hostname) => {
    expect(checkUrl(input)).toStrictEqual(acceptedName(href, hostname));
  });
});

describe('checkUrl rule 3: scheme', () => {
  it.each([
    ['http://example.com/', 'http'],
    ['HTTP://example.com/', 'uppercase http'],
    ['ftp://example.com/', 'ftp'],
    ['ws://example.com/', 'ws'],
    ['wss://example.com/', 'wss'],
    ['file:///etc/passwd', 'file'],
    ['gopher://example.com/', 'gopher'],
    ['javascript:alert(1)', 'javascript'],
    ['data:text/plain,hi', 'data'],
    ['blob:https://example.com/x', 'blob wrapping https'],
    ['httpss://example.com/', 'a look-alike scheme'],
  ])('%s (%s) is refused', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_HTTPS));
  });

  it.each([
    ['HTTPS://example.com/', 'https://example.com/', 'uppercase scheme'],
    ['HtTpS://EXAMPLE.com', 'https://example.com/', 'mixed-case scheme, no path'],
    ['https:example.com', 'https://example.com/', 'no slashes: WHATWG reads the host anyway'],
    ['https:/example.com', 'https://example.com/', 'one slash'],
    ['https:\\\\example.com\\hook', 'https://example.com/hook', 'backslashes, read as slashes'],
    ['https:///example.com', 'https://example.com/', 'three slashes'],
  ])('%j is accepted as %s (%s)', (input, href) => {
    expect(checkUrl(input)).toStrictEqual(acceptedName(href, 'example.com'));
  });

  it.each([
    ['', 'empty string'],
    ['/hooks', 'absolute path'],
    ['hooks/x', 'relative path'],
    ['//example.com/hooks', 'scheme-relative'],
    ['?q=1', 'query only'],
    ['#f', 'fragment only'],
    ['example.com/hooks', 'no scheme'],
    ['https://', 'scheme without a host'],
  ])('%j (%s) is refused as not absolute', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_ABSOLUTE));
  });
});

describe('checkUrl rule 3: no username or password', () => {
  it.each([
    ['https://user@example.com/', 'username'],
    ['https://user:pass@example.com/', 'username and password'],
    ['https://:pass@example.com/', 'password only'],
    ['https://user:@example.com/', 'username with an empty password'],
    ['https://user%40x@example.com/', 'percent-encoded @ in the username'],
    ['https://user@8.8.8.8/', 'username before a public IP literal'],
    ['https://user:pass@[2001:4860:4860::8888]/', 'credentials before a public IPv6 literal'],
  ])('%s (%s) is refused', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(USERINFO));
  });

  it.each([
    ['https://@example.com/', 'an empty userinfo'],
    ['https://:@example.com/', 'an empty username and password'],
  ])('%s (%s) is accepted with the empty userinfo dropped from the href', (input) => {
    expect(checkUrl(input)).toStrictEqual(acceptedName('https://example.com/', 'example.com'));
  });
});

describe('checkUrl rule 3: port', () => {
  it.each([
    ['https://example.com:0/', 'zero'],
    ['https://example.com:00/', 'zero with a leading zero'],
    ['https://8.8.8.8:0/', 'zero on an IP literal'],
  ])('%s (port %s) is refused', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(BAD_PORT));
  });

  it.each([
    ['https://example.com:65536/', 'one above the maximum'],
    ['https://example.com:99999/', 'far above the maximum'],
    ['https://example.com:-1/', 'negative'],
    ['https://example.com:8a/', 'not a number'],
  ])('%s (port %s) does not parse and is refused', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(NOT_ABSOLUTE));
  });

  it.each([
    ['https://example.com:1/', 'https://example.com:1/', 'the minimum'],
    ['https://example.com:65535/', 'https://example.com:65535/', 'the maximum'],
    ['https://example.com:8443/', 'https://example.com:8443/', 'an ordinary port'],
    ['https://example.com:08443/', 'https://example.com:8443/', 'a leading zero, dropped'],
    ['https://example.com:443/', 'https://example.com/', 'the default port, elided'],
    ['https://example.com:0443/', 'https://example.com/', 'the default port with a leading zero, elided'],
    ['https://example.com:/', 'https://example.com/', 'an empty port'],
  ])('%s is accepted as %s (%s)', (input, href) => {
    expect(checkUrl(input)).toStrictEqual(acceptedName(href, 'example.com'));
  });
});

describe('checkUrl rule 1: length', () => {
  const base = 'https://example.com/'; // 20 characters

  it('accepts a URL of exactly 2048 characters', () => {
    const input = base + 'a'.repeat(2048 - base.length);
    expect(input.length).toBe(2048);
    expect(checkUrl(input)).toStrictEqual(acceptedName(input, 'example.com'));
  });

  it('refuses a URL of 2049 characters', () => {
    const input = base + 'a'.repeat(2049 - base.length);
    expect(input.length).toBe(2049);
    expect(checkUrl(input)).toStrictEqual(refused(TOO_LONG));
  });

  it('refuses a short URL whose normalized href exceeds 2048 characters', () => {
    const input = base + 'é'.repeat(700); // each é becomes %C3%A9
    expect(input.length).toBe(720);
    expect(checkUrl(input)).toStrictEqual(refused(TOO_LONG_NORMALIZED));
  });

  it('accepts a URL whose normalized href is exactly 2048 characters', () => {
    const input = base + 'é'.repeat(300) + 'a'.repeat(228);
    const href = base + '%C3%A9'.repeat(300) + 'a'.repeat(228);
    expect(href.length).toBe(2048);
    expect(checkUrl(input)).toStrictEqual(acceptedName(href, 'example.com'));
  });

  it('refuses a URL whose normalized href is 2049 characters', () => {
    const input = base + 'é'.repeat(300) + 'a'.repeat(229);
    expect(checkUrl(input)).toStrictEqual(refused(TOO_LONG_NORMALIZED));
  });
});

describe('checkUrl rule 1: invisible characters', () => {
  const kinds: readonly (readonly [name: string, char: string])[] = [
    ['space', ' '],
    ['tab', '\t'],
    ['line feed', '\n'],
    ['carriage return', '\r'],
    ['NUL', '\0'],
    ['DEL', '\x7f'],
    ['no-break space U+00A0', '\u00a0'],
    ['zero-width space U+200B', '\u200b'],
    ['soft hyphen U+00AD', '\u00ad'],
    ['line separator U+2028', '\u2028'],
    ['byte order mark U+FEFF', '\ufeff'],
    ['right-to-left override U+202E', '\u202e'],
    ['ideographic space U+3000', '\u3000'],
    ['paragraph separator U+2029', '\u2029'],
    ['zero-width joiner U+200D', '\u200d'],
    ['word joiner U+2060', '\u2060'],
    ['private use U+E000', '\ue000'],
  ];

  // Inside the host is where the parser would silently drop or map some of them away.
  it.each(kinds.map(([name, char]) => ({ name, input: `https://exa${char}mple.com/` })))(
    '$name inside the host is refused',
    ({ input }) => {
      expect(checkUrl(input)).toStrictEqual(refused(INVISIBLE));
    },
  );

  it.each(kinds.map(([name, char]) => ({ name, input: `https://example.com/a${char}b` })))(
    '$name inside the path is refused',
    ({ input }) => {
      expect(checkUrl(input)).toStrictEqual(refused(INVISIBLE));
    },
  );

  it.each([
    [' https://example.com/', 'leading space (the parser would trim it)'],
    ['https://example.com/ ', 'trailing space (the parser would trim it)'],
    ['https://example.com/\n', 'trailing newline'],
    ['ht\ttps://example.com/', 'tab inside the scheme (the parser would remove it)'],
    ['https://127.0.0.1\t/', 'tab after an IP literal'],
  ])('%j (%s) is refused', (input) => {
    expect(checkUrl(input)).toStrictEqual(refused(INVISIBLE));
  });
});

describe('checkUrl: messages name the rule, never the address', () => {
  it.each([
    ['https://127.0.0.1/', ['127.0.0.1']],
    ['https://2130706433/', ['2130706433', '127.0.0.1']],
    ['https://0xa9.0xfe.0xa9.0xfe/', ['0xa9', '169.254']],
    ['https://[::ffff:127.0.0.1]/', ['::ffff', '7f00', '127.0.0.1']],
    ['https://[fe80::1]/', ['fe80']],
    ['https://10.0.0.1:0/', ['10.0.0.1']],
    ['https://alice:s3cr3t@10.0.0.1/', ['10.0.0.1', 'alice', 's3cr3t']],
    ['https://secret.internal/', ['secret']],
  ])('the refusal of %s does not mention %j', (input, fragments) => {
    const result = checkUrl(input);
    expect(result.ok).toBe(false);
    const problem = result.ok ? '' : result.problem;
    expect(fragments.filter((fragment) => problem.includes(fragment))).toEqual([]);
  });
});

describe('checkUrl judges an IP literal on the port the URL connects to (TRUSTED_CIDRS, docs/api.md 10.4)', () => {
  it.each([
    ['https://127.0.0.1:9443/x', '127.0.0.1', 9443],
    ['https://127.0.0.1/x', '127.0.0.1', 443],
    ['https://127.0.0.1:443/x', '127.0.0.1', 443],
    ['https://[::1]:8443/', '::1', 8443],
    ['https://[::1]/', '::1', 443],
  ])('%s: asks about %s on port %i', (url, address, port) => {
    const asked: [string, number][] = [];
    checkUrl(url, (a, p) => (asked.push([a, p]), true));
    expect(asked).toEqual([[address, port]]);
  });

  it("accepts a trusted address on its entry's port and refuses it on any other, as not public", () => {
    const { allows } = new AddressPolicy([{ cidr: '127.0.0.1/32', ports: [9443] }]);
    expect(checkUrl('https://127.0.0.1:9443/in', allows)).toStrictEqual(acceptedLiteral('https://127.0.0.1:9443/in'));
    expect(checkUrl('https://127.0.0.1/in', allows)).toStrictEqual(refused(NOT_PUBLIC));
    expect(checkUrl('https://127.0.0.1:3000/in', allows)).toStrictEqual(refused(NOT_PUBLIC));
  });

  it.each([
    ['https://[::1.2.3.4]/', false, 'IPv4-compatible 1.2.3.4, normalized to ::102:304 and dialled so: inside ::/8'],
    ['https://[::ffff:1.2.3.4]/', true, 'IPv4-mapped 1.2.3.4: dialled as 1.2.3.4'],
    ['https://[64:ff9b::1.2.3.4]/', true, 'NAT64 of 1.2.3.4'],
    ['https://[2002:0102:0304::]/', true, '6to4 of 1.2.3.4'],
  ])('judges %s as the address dialled: accepted %s (%s)', (url, accepted) => {
    expect(checkUrl(url, new AddressPolicy().allows).ok).toBe(accepted);
  });

  it.each([
    ['https://[::ffff:10.0.0.5]/', true, 'IPv4-mapped: the connection goes to 10.0.0.5'],
    ['https://[::10.0.0.5]/', false, 'IPv4-compatible: the connection goes to the IPv6 ::a00:5'],
    ['https://[64:ff9b::10.0.0.5]/', false, 'NAT64: an IPv6 address to the NAT64 gateway'],
    ['https://[2002:0a00:0005::]/', false, '6to4: an IPv6 address'],
  ])('trusting 10.0.0.0/8, judges %s as the address dialled: accepted %s (%s)', (url, accepted) => {
    expect(checkUrl(url, new AddressPolicy([{ cidr: '10.0.0.0/8' }]).allows).ok).toBe(accepted);
  });

  it.each([
    ['https://example.com/', 443],
    ['https://example.com:443/', 443],
    ['https://example.com:8443/', 8443],
    ['https://[2001:db8::1]:1/', 1],
  ])('portOf(%s) is %i', (href, port) => {
    expect(portOf(href)).toBe(port);
  });
});
