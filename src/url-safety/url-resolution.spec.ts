import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type FamilyAnswers, HostResolver } from './host-resolver';
import { AddressPolicy } from './public-address';
import { type NamedUrl, type ResolutionVerdict, UrlResolution } from './url-resolution';

/** The resolution logs why it answers 'unavailable'; these tests don't read it. */
const silent = pino({ level: 'silent' });

/**
 * docs/api.md 5.1 rules 6 and 7, with fake resolvers: no network. Errors are shaped like the ones
 * Node's c-ares resolver rejects with (an Error with `code`, `syscall` and `hostname`).
 */

const NOT_PUBLIC = 'must not point to a private, loopback or reserved address';
const DOES_NOT_RESOLVE = 'does not resolve';

type DnsCode =
  'ENOTFOUND' | 'ENODATA' | 'EBADNAME' | 'ESERVFAIL' | 'EREFUSED' | 'ETIMEOUT' | 'ECONNREFUSED' | 'EFORMERR' | 'EBADRESP' | 'ECANCELLED';

/** What one query answers: the addresses, a c-ares error code, or 'no code' (an Error without one). */
type Answer = readonly string[] | DnsCode | 'no code';

interface Zone {
  readonly a: Answer;
  readonly aaaa: Answer;
}

type QueryType = 'A' | 'AAAA';

function dnsError(code: DnsCode, type: QueryType, hostname: string): Error {
  const syscall = type === 'A' ? 'queryA' : 'queryAaaa';
  return Object.assign(new Error(`${syscall} ${code} ${hostname}`), { code, syscall, hostname });
}

/** Answers from a table (a name not in it is NXDOMAIN) and records every query it is asked. */
class TableResolver extends HostResolver {
  readonly calls: string[] = [];

  constructor(private readonly zones: Readonly<Record<string, Zone>>) {
    super();
  }

  override resolve4(name: string): Promise<string[]> {
    return this.answer('A', name);
  }

  override resolve6(name: string): Promise<string[]> {
    return this.answer('AAAA', name);
  }

  private async answer(type: QueryType, name: string): Promise<string[]> {
    this.calls.push(`${type} ${name}`);
    await new Promise<void>((resolve) => setImmediate(resolve)); // like c-ares: never synchronous
    const zone = this.zones[name];
    const answer = zone === undefined ? 'ENOTFOUND' : type === 'A' ? zone.a : zone.aaaa;
    if (answer === 'no code') throw new Error(`${type} lookup of ${name} failed`);
    if (typeof answer === 'string') throw dnsError(answer, type, name);
    return [...answer];
  }
}

/**
 * Holds every answer until all the expected queries (keyed by `key`) have been asked: a
 * caller that waits for one answer before asking the next query never gets any answer.
 */
class BarrierResolver extends HostResolver {
  private readonly asked = new Set<string>();
  private release: () => void = () => undefined;
  private readonly allAsked = new Promise<void>((resolve) => {
    this.release = resolve;
  });

  constructor(
    private readonly expected: ReadonlySet<string>,
    private readonly key: (type: QueryType, name: string) => string,
  ) {
    super();
  }

  override resolve4(name: string): Promise<string[]> {
    return this.answer('A', name);
  }

  override resolve6(name: string): Promise<string[]> {
    return this.answer('AAAA', name);
  }

  private async answer(type: QueryType, name: string): Promise<string[]> {
    this.asked.add(this.key(type, name));
    if ([...this.expected].every((key) => this.asked.has(key))) this.release();
    await this.allAsked;
    return type === 'A' ? ['8.8.8.8'] : ['2001:4860:4860::8888'];
  }
}

/** Fails the test instead of hanging it when the lookups were not run concurrently. */
async function withinOneSecond<T>(promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('still waiting after 1s: the lookups did not run concurrently')), 1000);
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

const ok: ResolutionVerdict = { kind: 'ok' };
const unavailable: ResolutionVerdict = { kind: 'unavailable' };
const invalid = (...messages: string[]): ResolutionVerdict => ({ kind: 'invalid', messages });

const PUBLIC_V4 = ['8.8.8.8'];
const PUBLIC_V6 = ['2001:4860:4860::8888'];

/** A readable outcome for a test title. */
const outcome = (verdict: ResolutionVerdict): string =>
  verdict.kind === 'invalid' ? `400 ${verdict.messages.map((message) => message.split(': ')[1]).join(', ')}` : verdict.kind;

interface Case {
  readonly name: string;
  readonly a: Answer;
  readonly aaaa: Answer;
  readonly expected: ResolutionVerdict;
}

describe('UrlResolution rule 6: the verdict on one host, in the order of docs/api.md 5.1', () => {
  const cases: readonly Case[] = [
    // d. accepted
    { name: 'public A and public AAAA', a: PUBLIC_V4, aaaa: PUBLIC_V6, expected: ok },
    { name: 'public A, AAAA ENODATA', a: PUBLIC_V4, aaaa: 'ENODATA', expected: ok },
    { name: 'A ENODATA, public AAAA', a: 'ENODATA', aaaa: PUBLIC_V6, expected: ok },
    { name: 'public A, AAAA ENOTFOUND', a: PUBLIC_V4, aaaa: 'ENOTFOUND', expected: ok },
    { name: 'two public A answers, AAAA empty', a: ['8.8.8.8', '1.1.1.1'], aaaa: [], expected: ok },
    { name: 'public mapped and 6to4 AAAA answers', a: 'ENODATA', aaaa: ['::ffff:8.8.8.8', '2002:808:808::1'], expected: ok },
    // a. any non-public answer: refused, not filtered
    { name: 'private A, AAAA ENODATA', a: ['10.0.0.1'], aaaa: 'ENODATA', expected: invalid(`url: ${NOT_PUBLIC}`) },
    { name: 'one public and one private A answer', a: ['8.8.8.8', '10.0.0.1'], aaaa: [], expected: invalid(`url: ${NOT_PUBLIC}`) },
    { name: 'loopback A listed before a public one', a: ['127.0.0.1', '8.8.8.8'], aaaa: [], expected: invalid(`url: ${NOT_PUBLIC}`) },
    { name: 'cloud metadata A beside a public AAAA', a: ['169.254.169.254'], aaaa: PUBLIC_V6, expected: invalid(`url: ${NOT_PUBLIC}`) },
    { name: 'public A beside a unique-local AAAA', a: PUBLIC_V4, aaaa: ['fd00::1'], expected: invalid(`url: ${NOT_PUBLIC}`) },
    {
      name: 'public A beside an IPv4-mapped loopback AAAA',
      a: PUBLIC_V4,
      aaaa: ['::ffff:127.0.0.1'],
      expected: invalid(`url: ${NOT_PUBLIC}`),
    },
    { name: 'public A beside the loopback AAAA', a: PUBLIC_V4, aaaa: ['::1'], expected: invalid(`url: ${NOT_PUBLIC}`) },
    { name: 'public A beside a NAT64 AAAA of 10.0.0.1', a: PUBLIC_V4, aaaa: ['64:ff9b::a00:1'], expected: invalid(`url: ${NOT_PUBLIC}`) },
    {
      name: 'public A beside AAAA ::8.8.8.8 (how c-ares prints the IPv4-compatible ::808:808, inside ::/8)',
      a: PUBLIC_V4,
      aaaa: ['::8.8.8.8'],
      expected: invalid(`url: ${NOT_PUBLIC}`),
    },
    { name: 'private A, AAAA ESERVFAIL', a: ['10.0.0.1'], aaaa: 'ESERVFAIL', expected: invalid(`url: ${NOT_PUBLIC}`) },
    { name: 'A ETIMEOUT, private AAAA', a: 'ETIMEOUT', aaaa: ['fe80::1'], expected: invalid(`url: ${NOT_PUBLIC}`) },
    { name: 'A ECONNREFUSED, private AAAA', a: 'ECONNREFUSED', aaaa: ['fc00::1'], expected: invalid(`url: ${NOT_PUBLIC}`) },
    {
      name: 'public and private A, AAAA EREFUSED',
      a: ['8.8.8.8', '192.168.1.1'],
      aaaa: 'EREFUSED',
      expected: invalid(`url: ${NOT_PUBLIC}`),
    },
    // b. a lookup failed for another reason than no name / no data
    { name: 'public A, AAAA ESERVFAIL', a: PUBLIC_V4, aaaa: 'ESERVFAIL', expected: unavailable },
    { name: 'public A, AAAA ETIMEOUT', a: PUBLIC_V4, aaaa: 'ETIMEOUT', expected: unavailable },
    { name: 'A EREFUSED, public AAAA', a: 'EREFUSED', aaaa: PUBLIC_V6, expected: unavailable },
    { name: 'A ECONNREFUSED, AAAA ECONNREFUSED (unreachable resolver)', a: 'ECONNREFUSED', aaaa: 'ECONNREFUSED', expected: unavailable },
    { name: 'A ENOTFOUND, AAAA ESERVFAIL', a: 'ENOTFOUND', aaaa: 'ESERVFAIL', expected: unavailable },
    { name: 'A ENODATA, AAAA ETIMEOUT', a: 'ENODATA', aaaa: 'ETIMEOUT', expected: unavailable },
    { name: 'A EBADNAME, AAAA EREFUSED', a: 'EBADNAME', aaaa: 'EREFUSED', expected: unavailable },
    { name: 'A ETIMEOUT, AAAA ETIMEOUT', a: 'ETIMEOUT', aaaa: 'ETIMEOUT', expected: unavailable },
    { name: 'A EFORMERR, AAAA ENODATA', a: 'EFORMERR', aaaa: 'ENODATA', expected: unavailable },
    { name: 'A EBADRESP, AAAA ENODATA', a: 'EBADRESP', aaaa: 'ENODATA', expected: unavailable },
    { name: 'A ECANCELLED, AAAA ENODATA', a: 'ECANCELLED', aaaa: 'ENODATA', expected: unavailable },
    { name: 'public A, AAAA rejected with an Error that has no code', a: PUBLIC_V4, aaaa: 'no code', expected: unavailable },
    // c. no address at all
    { name: 'A ENOTFOUND, AAAA ENOTFOUND (NXDOMAIN)', a: 'ENOTFOUND', aaaa: 'ENOTFOUND', expected: invalid(`url: ${DOES_NOT_RESOLVE}`) },
    { name: 'A ENODATA, AAAA ENODATA', a: 'ENODATA', aaaa: 'ENODATA', expected: invalid(`url: ${DOES_NOT_RESOLVE}`) },
    { name: 'A ENOTFOUND, AAAA ENODATA', a: 'ENOTFOUND', aaaa: 'ENODATA', expected: invalid(`url: ${DOES_NOT_RESOLVE}`) },
    { name: 'A EBADNAME, AAAA EBADNAME (malformed name)', a: 'EBADNAME', aaaa: 'EBADNAME', expected: invalid(`url: ${DOES_NOT_RESOLVE}`) },
    { name: 'empty A and empty AAAA answers', a: [], aaaa: [], expected: invalid(`url: ${DOES_NOT_RESOLVE}`) },
    { name: 'empty A, AAAA ENODATA', a: [], aaaa: 'ENODATA', expected: invalid(`url: ${DOES_NOT_RESOLVE}`) },
  ];

  it.each(cases.map((row) => [`${row.name} → ${outcome(row.expected)}`, row] as const))('%s', async (_title, { a, aaaa, expected }) => {
    const resolution = new UrlResolution(new TableResolver({ 'host.example': { a, aaaa } }), silent);
    expect(await resolution.check([{ field: 'url', hostname: 'host.example', port: 443 }])).toEqual(expected);
  });

  it('a name missing from the resolver (NXDOMAIN on both families) does not resolve', async () => {
    const resolution = new UrlResolution(new TableResolver({}), silent);
    expect(await resolution.check([{ field: 'transaction.created', hostname: 'nowhere.example', port: 443 }])).toEqual(
      invalid('transaction.created: does not resolve'),
    );
  });
});

describe('UrlResolution rule 7: the verdict on all the URLs of one request', () => {
  const zones: Readonly<Record<string, Zone>> = {
    'good.example': { a: PUBLIC_V4, aaaa: PUBLIC_V6 },
    'other-good.example': { a: ['1.1.1.1'], aaaa: 'ENODATA' },
    'private.example': { a: ['10.0.0.1'], aaaa: 'ENODATA' },
    'nxdomain.example': { a: 'ENOTFOUND', aaaa: 'ENOTFOUND' },
    'servfail.example': { a: 'ESERVFAIL', aaaa: 'ESERVFAIL' },
    'timeout.example': { a: PUBLIC_V4, aaaa: 'ETIMEOUT' },
  };
  const check = (urls: NamedUrl[]) => new UrlResolution(new TableResolver(zones), silent).check(urls);

  it('a request without named URLs is accepted', async () => {
    expect(await check([])).toEqual(ok);
  });

  it('a request whose URLs all resolve to public addresses is accepted', async () => {
    const urls = [
      { field: 'url', hostname: 'good.example', port: 443 },
      { field: 'card.updated', hostname: 'other-good.example', port: 443 },
    ];
    expect(await check(urls)).toEqual(ok);
  });

  it('one unavailable URL among accepted ones makes the request unavailable', async () => {
    const urls = [
      { field: 'url', hostname: 'good.example', port: 443 },
      { field: 'user.updated', hostname: 'timeout.example', port: 443 },
    ];
    expect(await check(urls)).toEqual(unavailable);
  });

  it('a non-public URL after an unavailable one makes the request invalid', async () => {
    const urls = [
      { field: 'url', hostname: 'servfail.example', port: 443 },
      { field: 'transaction.created', hostname: 'private.example', port: 443 },
    ];
    expect(await check(urls)).toEqual(invalid(`transaction.created: ${NOT_PUBLIC}`));
  });

  it('a non-public URL before an unavailable one makes the request invalid', async () => {
    const urls = [
      { field: 'url', hostname: 'private.example', port: 443 },
      { field: 'transaction.created', hostname: 'servfail.example', port: 443 },
    ];
    expect(await check(urls)).toEqual(invalid(`url: ${NOT_PUBLIC}`));
  });

  it('a URL that does not resolve beats an unavailable one', async () => {
    const urls = [
      { field: 'url', hostname: 'timeout.example', port: 443 },
      { field: 'card.updated', hostname: 'nxdomain.example', port: 443 },
    ];
    expect(await check(urls)).toEqual(invalid('card.updated: does not resolve'));
  });

  it('names every offending field, in request order, and no accepted or unavailable one', async () => {
    const urls = [
      { field: 'url', hostname: 'good.example', port: 443 },
      { field: 'transaction.created', hostname: 'nxdomain.example', port: 443 },
      { field: 'transaction.updated', hostname: 'private.example', port: 443 },
      { field: 'transaction.completed', hostname: 'servfail.example', port: 443 },
      { field: 'user.updated', hostname: 'nxdomain.example', port: 443 },
    ];
    expect(await check(urls)).toEqual(
      invalid('transaction.created: does not resolve', `transaction.updated: ${NOT_PUBLIC}`, 'user.updated: does not resolve'),
    );
  });

  it('names each field that shares a refused host', async () => {
    const urls = [
      { field: 'url', hostname: 'private.example', port: 443 },
      { field: 'card.updated', hostname: 'private.example', port: 443 },
    ];
    expect(await check(urls)).toEqual(invalid(`url: ${NOT_PUBLIC}`, `card.updated: ${NOT_PUBLIC}`));
  });

  it('never puts a resolved address in a message', async () => {
    const addresses = ['10.11.12.13', '192.168.7.7', 'fd00::abcd', '::ffff:172.16.5.5', '8.8.4.4'];
    const resolver = new TableResolver({
      'v4.example': { a: ['8.8.4.4', '10.11.12.13', '192.168.7.7'], aaaa: 'ENODATA' },
      'v6.example': { a: 'ENODATA', aaaa: ['fd00::abcd', '::ffff:172.16.5.5'] },
    });
    const verdict = await new UrlResolution(resolver, silent).check([
      { field: 'url', hostname: 'v4.example', port: 443 },
      { field: 'user.updated', hostname: 'v6.example', port: 443 },
    ]);
    expect(verdict).toEqual(invalid(`url: ${NOT_PUBLIC}`, `user.updated: ${NOT_PUBLIC}`));
    const messages = verdict.kind === 'invalid' ? verdict.messages : [];
    expect(messages.filter((message) => addresses.some((address) => message.includes(address)))).toEqual([]);
  });
});

describe('UrlResolution rule 7: each distinct host is resolved once per check, concurrently', () => {
  it('asks A and AAAA exactly once per distinct host, however many fields share it', async () => {
    const resolver = new TableResolver({
      'a.example': { a: PUBLIC_V4, aaaa: PUBLIC_V6 },
      'b.example': { a: ['1.1.1.1'], aaaa: 'ENODATA' },
    });
    const verdict = await new UrlResolution(resolver, silent).check([
      { field: 'url', hostname: 'a.example', port: 443 },
      { field: 'transaction.created', hostname: 'a.example', port: 443 },
      { field: 'transaction.updated', hostname: 'b.example', port: 443 },
      { field: 'transaction.completed', hostname: 'a.example', port: 443 },
      { field: 'card.updated', hostname: 'b.example', port: 443 },
    ]);
    expect(verdict).toEqual(ok);
    expect([...resolver.calls].sort()).toEqual(['A a.example', 'A b.example', 'AAAA a.example', 'AAAA b.example']);
  });

  it('asks a failing host once even when several fields share it', async () => {
    const resolver = new TableResolver({ 'down.example': { a: 'ESERVFAIL', aaaa: 'ETIMEOUT' } });
    const verdict = await new UrlResolution(resolver, silent).check([
      { field: 'url', hostname: 'down.example', port: 443 },
      { field: 'user.updated', hostname: 'down.example', port: 443 },
      { field: 'card.updated', hostname: 'down.example', port: 443 },
    ]);
    expect(verdict).toEqual(unavailable);
    expect([...resolver.calls].sort()).toEqual(['A down.example', 'AAAA down.example']);
  });

  it('resolves again on the next check: answers are not kept across requests', async () => {
    const resolver = new TableResolver({ 'a.example': { a: PUBLIC_V4, aaaa: PUBLIC_V6 } });
    const resolution = new UrlResolution(resolver, silent);
    await resolution.check([{ field: 'url', hostname: 'a.example', port: 443 }]);
    await resolution.check([{ field: 'url', hostname: 'a.example', port: 443 }]);
    expect([...resolver.calls].sort()).toEqual(['A a.example', 'A a.example', 'AAAA a.example', 'AAAA a.example']);
  });

  it('asks each host through one resolveBoth: its A and AAAA are one lookup (one c-ares channel, one deadline)', async () => {
    const lookups: string[] = [];
    class BothOnly extends HostResolver {
      override resolve4(): Promise<string[]> {
        throw new Error('asked alone');
      }
      override resolve6(): Promise<string[]> {
        throw new Error('asked alone');
      }
      override async resolveBoth(name: string): Promise<FamilyAnswers> {
        lookups.push(name);
        return [
          { status: 'fulfilled', value: PUBLIC_V4 },
          { status: 'fulfilled', value: PUBLIC_V6 },
        ];
      }
    }
    const verdict = await new UrlResolution(new BothOnly(), silent).check([
      { field: 'url', hostname: 'a.example', port: 443 },
      { field: 'user.updated', hostname: 'b.example', port: 443 },
      { field: 'card.updated', hostname: 'a.example', port: 443 },
    ]);
    expect(verdict).toEqual(ok);
    expect(lookups.sort()).toEqual(['a.example', 'b.example']);
    expect(await new UrlResolution(new BothOnly(), silent).vet('c.example', 443)).toEqual({
      kind: 'ok',
      addresses: [...PUBLIC_V4, ...PUBLIC_V6],
    });
  });

  it('asks A and AAAA of one host in parallel', async () => {
    const resolver = new BarrierResolver(new Set(['A', 'AAAA']), (type) => type);
    const verdict = await withinOneSecond(new UrlResolution(resolver, silent).check([{ field: 'url', hostname: 'a.example', port: 443 }]));
    expect(verdict).toEqual(ok);
  });

  it('resolves different hosts concurrently', async () => {
    const resolver = new BarrierResolver(new Set(['a.example', 'b.example']), (_type, name) => name);
    const verdict = await withinOneSecond(
      new UrlResolution(resolver, silent).check([
        { field: 'url', hostname: 'a.example', port: 443 },
        { field: 'transaction.created', hostname: 'b.example', port: 443 },
      ]),
    );
    expect(verdict).toEqual(ok);
  });
});

describe("UrlResolution.vet: delivery's check at every attempt (docs/api.md 10.4)", () => {
  /** Answers only when released, so that lookups overlap. */
  class HeldResolver extends HostResolver {
    readonly calls: string[] = [];
    private readonly held: (() => void)[] = [];
    override resolve4(name: string): Promise<string[]> {
      this.calls.push(`A ${name}`);
      return new Promise((resolve) => this.held.push(() => resolve([PUBLIC_V4[0]])));
    }
    override resolve6(name: string): Promise<string[]> {
      this.calls.push(`AAAA ${name}`);
      return new Promise((resolve) => this.held.push(() => resolve([])));
    }
    release(): void {
      for (const answer of this.held.splice(0)) answer();
    }
  }

  it('lets attempts to one host that start while its lookup is on its way share that lookup', async () => {
    const resolver = new HeldResolver();
    const resolution = new UrlResolution(resolver, silent);
    const vets = [resolution.vet('a.example', 443), resolution.vet('a.example', 443)];
    resolver.release();
    expect(await Promise.all(vets)).toEqual([
      { kind: 'ok', addresses: [PUBLIC_V4[0]] },
      { kind: 'ok', addresses: [PUBLIC_V4[0]] },
    ]);
    expect(resolver.calls).toEqual(['A a.example', 'AAAA a.example']);
  });

  it('resolves again for an attempt that starts after the lookup answered: nothing is kept', async () => {
    const resolver = new HeldResolver();
    const resolution = new UrlResolution(resolver, silent);
    const first = resolution.vet('a.example', 443);
    resolver.release();
    await first;
    const second = resolution.vet('a.example', 443);
    resolver.release();
    await second;
    expect(resolver.calls).toEqual(['A a.example', 'AAAA a.example', 'A a.example', 'AAAA a.example']);
  });
});

describe('UrlResolution with TRUSTED_CIDRS that name their ports (docs/api.md 10.4)', () => {
  const policy = new AddressPolicy([{ cidr: '10.0.0.0/8', ports: [8443] }]);
  const resolver = () => new TableResolver({ 'internal.example': { a: ['10.0.0.5'], aaaa: 'ENODATA' } });

  it("accepts a name resolving into a trusted range on one of its entry's ports", async () => {
    expect(await new UrlResolution(resolver(), silent, policy).check([{ field: 'url', hostname: 'internal.example', port: 8443 }])).toEqual(
      ok,
    );
  });

  it.each([443, 3306, 8080])('refuses it on port %i as not public', async (port) => {
    expect(await new UrlResolution(resolver(), silent, policy).check([{ field: 'url', hostname: 'internal.example', port }])).toEqual(
      invalid(`url: ${NOT_PUBLIC}`),
    );
  });

  it('judges each URL on its own port, the host still resolved once', async () => {
    const table = resolver();
    const verdict = await new UrlResolution(table, silent, policy).check([
      { field: 'url', hostname: 'internal.example', port: 8443 },
      { field: 'card.updated', hostname: 'internal.example', port: 443 },
    ]);
    expect(verdict).toEqual(invalid(`card.updated: ${NOT_PUBLIC}`));
    expect([...table.calls].sort()).toEqual(['A internal.example', 'AAAA internal.example']);
  });

  it("vets for delivery on the entry's port, and answers blocked address on another", async () => {
    const resolution = new UrlResolution(resolver(), silent, policy);
    expect(await resolution.vet('internal.example', 8443)).toEqual({ kind: 'ok', addresses: ['10.0.0.5'] });
    expect(await resolution.vet('internal.example', 443)).toEqual({ kind: 'blocked address' });
  });
});

describe('UrlResolution judges an AAAA answer as the address dialled, at registration and at delivery (issue 26)', () => {
  // As c-ares prints them: an IPv4-compatible or mapped address with a dotted tail, the others in hex.
  const forms: readonly [aaaa: string, isPublic: boolean, what: string][] = [
    ['::1.2.3.4', false, 'IPv4-compatible 1.2.3.4: dialled as the IPv6 ::102:304, inside ::/8'],
    ['::ffff:1.2.3.4', true, 'IPv4-mapped 1.2.3.4: dialled as 1.2.3.4'],
    ['64:ff9b::102:304', true, 'NAT64 of 1.2.3.4'],
    ['2002:102:304::', true, '6to4 of 1.2.3.4'],
  ];
  const only = (aaaa: string) => new TableResolver({ 'host.example': { a: 'ENODATA', aaaa: [aaaa] } });

  it.each(forms)('checks AAAA %s: public %s (%s)', async (aaaa, isPublic) => {
    expect(await new UrlResolution(only(aaaa), silent).check([{ field: 'url', hostname: 'host.example', port: 443 }])).toEqual(
      isPublic ? ok : invalid(`url: ${NOT_PUBLIC}`),
    );
  });

  it.each(forms)('vets AAAA %s: public %s (%s)', async (aaaa, isPublic) => {
    expect(await new UrlResolution(only(aaaa), silent).vet('host.example', 443)).toEqual(
      isPublic ? { kind: 'ok', addresses: [aaaa] } : { kind: 'blocked address' },
    );
  });

  describe('trusting 10.0.0.0/8', () => {
    const policy = new AddressPolicy([{ cidr: '10.0.0.0/8' }]);

    it('refuses AAAA ::10.0.0.5, the IPv4-compatible form: the connection would go to the IPv6 ::a00:5', async () => {
      const resolution = new UrlResolution(only('::10.0.0.5'), silent, policy);
      expect(await resolution.check([{ field: 'url', hostname: 'host.example', port: 443 }])).toEqual(invalid(`url: ${NOT_PUBLIC}`));
      expect(await resolution.vet('host.example', 443)).toEqual({ kind: 'blocked address' });
    });

    it('accepts AAAA ::ffff:10.0.0.5, the IPv4-mapped form: the connection goes to 10.0.0.5', async () => {
      const resolution = new UrlResolution(only('::ffff:10.0.0.5'), silent, policy);
      expect(await resolution.check([{ field: 'url', hostname: 'host.example', port: 443 }])).toEqual(ok);
      expect(await resolution.vet('host.example', 443)).toEqual({ kind: 'ok', addresses: ['::ffff:10.0.0.5'] });
    });
  });
});

describe('the log line behind a 503', () => {
  it('names each failing host and its resolver error codes, and no address', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const resolver = new TableResolver({
      'failing.example': { a: 'ESERVFAIL', aaaa: 'ETIMEOUT' },
      'fine.example': { a: ['93.184.215.14'], aaaa: 'ENODATA' },
    });
    const verdict = await new UrlResolution(resolver, logger).check([
      { field: 'url', hostname: 'fine.example', port: 443 },
      { field: 'card.updated', hostname: 'failing.example', port: 443 },
    ]);
    expect(verdict).toEqual({ kind: 'unavailable' });
    expect(lines.map((line) => JSON.parse(line) as { msg: string; dns: unknown })).toEqual([
      expect.objectContaining({ msg: 'dns unavailable', dns: [{ host: 'failing.example', codes: ['ESERVFAIL', 'ETIMEOUT'] }] }),
    ]);
    expect(lines.join('')).not.toContain('93.184.215.14');
  });
});
