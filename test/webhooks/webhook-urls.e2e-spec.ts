import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/databases';
import type { Zone } from '../support/dns-server';
import { TestApp } from '../support/test-app';

/*
 * The URL rules of docs/api.md 5.1 through HTTP, resolved by a real DNS server on loopback (the
 * harness's dns2 server; DNS_TIMEOUT_MS=300). `t.dns.questions` shows every question the
 * service asked, so "no DNS work" is an observable fact here, not an assumption.
 */

const PUBLIC_V4 = '93.184.215.14';
const PUBLIC_V6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';

/** Names in the zone are named for how the test DNS server answers them; others are NXDOMAIN. */
const ZONE: Zone = {
  'hooks.example.com': { A: [PUBLIC_V4] },
  'other.example.com': { A: [PUBLIC_V4] },
  'v6-only.example.com': { AAAA: [PUBLIC_V6] },
  // dns2 mis-encodes the dotted form of an IPv4-mapped address, so these are written in hex:
  'mapped-public.example.com': { AAAA: ['::ffff:808:808'] }, // ::ffff:8.8.8.8
  'mapped-private.example.com': { AAAA: ['::ffff:a00:1'] }, // ::ffff:10.0.0.1
  'loopback-v6.example.com': { A: [PUBLIC_V4], AAAA: ['::1'] },
  'one-private-a.example.com': { A: [PUBLIC_V4, '10.0.0.1'] },
  'private.example.com': { A: ['10.0.0.1'] },
  'servfail.example.com': { A: 'SERVFAIL' },
  'servfail-public-v6.example.com': { A: 'SERVFAIL', AAAA: [PUBLIC_V6] },
  'servfail-loopback-v6.example.com': { A: 'SERVFAIL', AAAA: ['::1'] },
  'refused.example.com': 'REFUSED',
  'timeout.example.com': 'TIMEOUT',
  'nodata.example.com': {},
  'dangling.example.com': { CNAME: 'nowhere.example.net' },
};

const GOOD_URL = 'https://hooks.example.com/hook';
const NOT_PUBLIC = 'must not point to a private, loopback or reserved address';
const SECRET = expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/);

const URL_FIELDS = ['url', 'transaction.created', 'transaction.updated', 'transaction.completed', 'card.updated', 'user.updated'] as const;
type UrlField = (typeof URL_FIELDS)[number];
type Body = Record<string, unknown>;

/** `{group: {member: value}}` for a dotted event field, `{url: value}` for `url`. */
function atField(field: UrlField, value: string | null): Body {
  if (field === 'url') return { url: value };
  const [group, member] = field.split('.');
  return { [group]: { [member]: value } };
}

/** A create body with `value` at `field` and an acceptable `url` otherwise. */
const createBody = (field: UrlField, value: string): Body => ({ url: GOOD_URL, ...atField(field, value) });

const invalidUrl = (...message: string[]) => ({ code: 'invalid url', message });

function expectDnsUnavailable(res: Response): void {
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ code: 'dns unavailable' });
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
}

describeEachDatabase('webhook URL rules over HTTP', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: ZONE });
  });
  afterAll(() => t?.close());

  const owner = async (): Promise<string> => (await t.member('owner')).cookie;
  const withCookie = <R extends { set(name: string, value: string): R }>(req: R, cookie: string | null): R =>
    cookie === null ? req : req.set('Cookie', cookie);

  const create = (cookie: string | null, name: string, body: Body) => withCookie(t.http().post(`/api/webhook/${name}`), cookie).send(body);
  const replace = (cookie: string | null, body: Body) => withCookie(t.http().post('/api/webhook'), cookie).send(body);
  const patch = (cookie: string | null, name: string, body: Body) => withCookie(t.http().patch(`/api/webhook/${name}`), cookie).send(body);
  const read = (cookie: string, name: string) => t.http().get(`/api/webhook/${name}`).set('Cookie', cookie);
  const list = (cookie: string) => t.http().get('/api/webhook').set('Cookie', cookie);

  /** Creates `name` and checks that it worked, for tests that need a stored webhook. */
  async function existing(cookie: string, name: string, body: Body): Promise<void> {
    const res = await create(cookie, name, body);
    expect(res.status).toBe(201);
  }

  /** The DNS questions asked from now on (`A name`, `AAAA name`). */
  function watchDns(): () => string[] {
    const start = t.dns.questions.length;
    return () => t.dns.questions.slice(start);
  }

  /** Questions for these names, both families, in a stable order. */
  const questionsFor = (...names: string[]) => names.flatMap((name) => [`A ${name}`, `AAAA ${name}`]).sort();

  describe('every URL field is subject to the rules', () => {
    const operations: [string, (field: UrlField, value: string) => Promise<Response>][] = [
      ['create', async (field, value) => create(await owner(), 'hook', createBody(field, value))],
      ['legacy create-or-update', async (field, value) => replace(await owner(), { name: 'hook', ...createBody(field, value) })],
      [
        'PATCH',
        async (field, value) => {
          const cookie = await owner();
          await existing(cookie, 'hook', { url: GOOD_URL });
          return patch(cookie, 'hook', atField(field, value));
        },
      ],
    ];

    describe.each(operations)('on %s', (_operation, send) => {
      it.each(URL_FIELDS)('refuses an http URL in %s, naming the field and the rule', async (field) => {
        const res = await send(field, 'http://hooks.example.com/hook');
        expect(res.status).toBe(400);
        expect(res.body).toEqual(invalidUrl(`${field}: must use https`));
      });

      it.each(URL_FIELDS)('refuses a name with a private answer in %s, naming the field and the rule', async (field) => {
        const res = await send(field, 'https://private.example.com/hook');
        expect(res.status).toBe(400);
        expect(res.body).toEqual(invalidUrl(`${field}: ${NOT_PUBLIC}`));
      });
    });
  });

  describe('static rules answer 400, without any DNS question when they are the only URLs', () => {
    const cases: [url: string, rule: string][] = [
      ['http://hooks.example.com/hook', 'must use https'],
      ['ftp://hooks.example.com/hook', 'must use https'],
      ['https://user@hooks.example.com/hook', 'must not contain a username or password'],
      ['https://user:secret@hooks.example.com/hook', 'must not contain a username or password'],
      ['https://:secret@hooks.example.com/hook', 'must not contain a username or password'],
      ['https://hooks.example.com:0/hook', 'port must be between 1 and 65535'],
      ['https://hooks.example.com:65536/hook', 'must be an absolute URL'],
      ['https://hooks.example.com/a b', 'must not contain whitespace, control or invisible characters'],
      ['https://hooks.example.com/\u200bhook', 'must not contain whitespace, control or invisible characters'],
      [`https://hooks.example.com/${'a'.repeat(2049)}`, 'must be at most 2048 characters'],
      ['https://127.0.0.1/', NOT_PUBLIC],
      ['https://127.1/', NOT_PUBLIC],
      ['https://0x7f000001/', NOT_PUBLIC],
      ['https://2130706433/', NOT_PUBLIC],
      ['https://0177.0.0.1/', NOT_PUBLIC],
      ['https://%31%32%37.0.0.1/', NOT_PUBLIC],
      ['https://0/', NOT_PUBLIC],
      ['https://10.0.0.1/', NOT_PUBLIC],
      ['https://169.254.169.254/', NOT_PUBLIC],
      ['https://[::1]/', NOT_PUBLIC],
      ['https://[::]/', NOT_PUBLIC],
      ['https://[::ffff:127.0.0.1]/', NOT_PUBLIC],
      ['https://[64:ff9b::a00:1]/', NOT_PUBLIC],
      ['https://[2002:a00:1::]/', NOT_PUBLIC],
      ['https://[fe80::1]/', NOT_PUBLIC],
      ['https://[fc00::1]/', NOT_PUBLIC],
      ['https://[2001:db8::1]/', NOT_PUBLIC],
      ['https://localhost/', 'must not point to localhost'],
      ['https://LOCALHOST./', 'must not point to localhost'],
      ['https://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/', 'must not point to localhost'], // fullwidth letters
      ['https://intranet/', 'host must be a fully qualified domain name'],
      ['https://intranet./', 'host must be a fully qualified domain name'],
      ['https://api.localhost/', 'host must not be a special-use name'],
      ['https://db.internal/', 'host must not be a special-use name'],
      ['https://db.internal./', 'host must not be a special-use name'],
      ['https://db\u3002INTERNAL/', 'host must not be a special-use name'], // ideographic full stop
      ['https://printer.local/', 'host must not be a special-use name'],
      ['https://router.home.arpa/', 'host must not be a special-use name'],
      ['https://hidden.onion/', 'host must not be a special-use name'],
      ['https://nothing.invalid/', 'host must not be a special-use name'],
      ['https://other.alt/', 'host must not be a special-use name'],
    ];

    it.each(cases)('%s: %s', async (url, rule) => {
      const asked = watchDns();
      const res = await create(await owner(), 'hook', { url });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidUrl(`url: ${rule}`));
      expect(asked()).toEqual([]);
    });

    it('names the other fields that do not resolve beside a static failure, in one 400 (5.1, rule 7)', async () => {
      const res = await create(await owner(), 'hook', {
        url: 'https://nxdomain.example.com/',
        card: { updated: 'http://hooks.example.com/' },
        user: { updated: 'https://servfail.example.com/' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidUrl('url: does not resolve', 'card.updated: must use https'));
    });
  });

  describe('public IP literals', () => {
    const cases: [given: string, stored: string][] = [
      ['https://8.8.8.8/hook', 'https://8.8.8.8/hook'],
      ['https://134744072/', 'https://8.8.8.8/'],
      ['https://0x8.0x8.0x8.0x8/', 'https://8.8.8.8/'],
      ['https://8.8.8.8:443/', 'https://8.8.8.8/'],
      ['https://[2606:4700:4700:0:0:0:0:1111]/', 'https://[2606:4700:4700::1111]/'],
      ['https://[::ffff:8.8.8.8]/', 'https://[::ffff:808:808]/'],
    ];

    it.each(cases)('accepts %s without DNS and stores it as %s', async (given, stored) => {
      const cookie = await owner();
      const asked = watchDns();
      const res = await create(cookie, 'hook', { url: given });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name: 'hook', url: stored, secret: SECRET });
      expect(asked()).toEqual([]);
      expect((await read(cookie, 'hook')).body).toEqual({ url: stored });
    });
  });

  describe('names', () => {
    it.each([
      ['an A record', 'hooks.example.com'],
      ['only an AAAA record', 'v6-only.example.com'],
      ['only an IPv4-mapped AAAA record of a public address', 'mapped-public.example.com'],
    ])('accepts a name with %s that is public', async (_answer, host) => {
      const res = await create(await owner(), 'hook', { url: `https://${host}/hook` });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name: 'hook', url: `https://${host}/hook`, secret: SECRET });
    });

    it('asks A and AAAA for a name', async () => {
      const asked = watchDns();
      await create(await owner(), 'hook', { url: GOOD_URL });
      expect(asked().sort()).toEqual(questionsFor('hooks.example.com'));
    });

    it.each([
      ['a public A and a loopback AAAA', 'loopback-v6.example.com', [PUBLIC_V4, '::1']],
      ['two A records, one of them private', 'one-private-a.example.com', [PUBLIC_V4, '10.0.0.1']],
      ['an IPv4-mapped AAAA of a private address', 'mapped-private.example.com', ['10.0.0.1', 'ffff']],
    ])('refuses a name with %s, without showing the addresses', async (_answer, host, addresses) => {
      const res = await create(await owner(), 'hook', { url: `https://${host}/hook` });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidUrl(`url: ${NOT_PUBLIC}`));
      for (const address of addresses) expect(res.text).not.toContain(address);
    });
  });

  describe('resolution failures, in the order of rule 6', () => {
    it('answers 503 when A fails with SERVFAIL and AAAA has no data', async () => {
      expectDnsUnavailable(await create(await owner(), 'hook', { url: 'https://servfail.example.com/' }));
    });

    it('answers 503 when A fails with SERVFAIL even though AAAA is public', async () => {
      expectDnsUnavailable(await create(await owner(), 'hook', { url: 'https://servfail-public-v6.example.com/' }));
    });

    it('answers 503 when the server refuses', async () => {
      expectDnsUnavailable(await create(await owner(), 'hook', { url: 'https://refused.example.com/' }));
    });

    it('answers 503 within a bounded time when the server never answers', async () => {
      const cookie = await owner();
      const started = Date.now();
      const res = await create(cookie, 'hook', { url: 'https://timeout.example.com/' });
      const elapsed = Date.now() - started;
      expectDnsUnavailable(res);
      // DNS_TIMEOUT_MS is 300, A and AAAA run in parallel, one try each: about 300 ms. Retries
      // (c-ares' default of 4 tries) or a longer timeout would take 1 s or more.
      expect(elapsed).toBeLessThan(1000);
    });

    it('answers 400 when A fails with SERVFAIL and AAAA is loopback: a private answer beats a failure', async () => {
      const res = await create(await owner(), 'hook', { url: 'https://servfail-loopback-v6.example.com/' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidUrl(`url: ${NOT_PUBLIC}`));
    });

    it.each([
      ['NXDOMAIN', 'nxdomain.example.com'],
      ['no data for A nor AAAA', 'nodata.example.com'],
      ['a CNAME to a name that does not exist', 'dangling.example.com'],
    ])('answers 400 does not resolve for %s', async (_answer, host) => {
      const res = await create(await owner(), 'hook', { url: `https://${host}/` });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidUrl('url: does not resolve'));
    });

    it('answers 400, not 503, when one URL does not resolve and another meets a failing resolver', async () => {
      const res = await create(await owner(), 'hook', {
        url: 'https://nxdomain.example.com/',
        transaction: { created: 'https://servfail.example.com/' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidUrl('url: does not resolve'));
    });

    it('answers 400, not 503, when the failing resolver is met first and a private answer later', async () => {
      const res = await create(await owner(), 'hook', {
        url: 'https://servfail.example.com/',
        card: { updated: 'https://private.example.com/' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidUrl(`card.updated: ${NOT_PUBLIC}`));
    });

    describe('with an unreachable resolver', () => {
      let unreachable: TestApp;
      beforeAll(async () => {
        unreachable = await TestApp.start(kind, { env: { DNS_SERVERS: '127.0.0.1:9' } });
      });
      afterAll(() => unreachable?.close());

      it('answers 503', async () => {
        const { cookie } = await unreachable.member('owner');
        expectDnsUnavailable(await unreachable.http().post('/api/webhook/hook').set('Cookie', cookie).send({ url: GOOD_URL }));
      });
    });

    it('names every field that fails resolution', async () => {
      const res = await create(await owner(), 'hook', {
        url: 'https://nxdomain.example.com/',
        user: { updated: 'https://private.example.com/' },
      });
      expect(res.status).toBe(400);
      expect({ ...res.body, message: [...(res.body.message as string[])].sort() }).toEqual(
        invalidUrl('url: does not resolve', `user.updated: ${NOT_PUBLIC}`),
      );
    });
  });

  describe('each distinct host is resolved once per request', () => {
    it('asks one A and one AAAA question per host for five URLs on two hosts', async () => {
      const asked = watchDns();
      const res = await create(await owner(), 'hook', {
        url: 'https://hooks.example.com/main',
        transaction: { created: 'https://hooks.example.com/created', updated: 'https://other.example.com/updated' },
        card: { updated: 'https://OTHER.example.com/card' },
        user: { updated: 'https://hooks.example.com/user' },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        name: 'hook',
        url: 'https://hooks.example.com/main',
        transaction: { created: 'https://hooks.example.com/created', updated: 'https://other.example.com/updated' },
        card: { updated: 'https://other.example.com/card' },
        user: { updated: 'https://hooks.example.com/user' },
        secret: SECRET,
      });
      expect(asked().sort()).toEqual(questionsFor('hooks.example.com', 'other.example.com'));
    });
  });

  describe('checks answered before any DNS work', () => {
    it('answers 409 name conflict on create without resolving', async () => {
      const cookie = await owner();
      await existing(cookie, 'hook', { url: 'https://8.8.8.8/' });
      const asked = watchDns();
      const res = await create(cookie, 'hook', { url: 'https://servfail.example.com/' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 'name conflict' });
      expect(asked()).toEqual([]);
    });

    it('answers 404 not found on PATCH without resolving', async () => {
      const asked = watchDns();
      const res = await patch(await owner(), 'missing', { url: 'https://servfail.example.com/' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ code: 'not found' });
      expect(asked()).toEqual([]);
    });

    const unauthenticated: [string, (body: Body) => Promise<Response>][] = [
      ['create', (body) => create(null, 'hook', body)],
      ['legacy create-or-update', (body) => replace(null, { name: 'hook', ...body })],
      ['PATCH', (body) => patch(null, 'hook', body)],
    ];

    it.each(unauthenticated)('answers 401 on %s without a cookie before validating the URL', async (_operation, send) => {
      const res = await send({ url: 'http://hooks.example.com/' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'unauthorized' });
    });

    it.each(unauthenticated)('answers 401 on %s without a cookie before resolving', async (_operation, send) => {
      const asked = watchDns();
      const res = await send({ url: 'https://servfail.example.com/' });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 'unauthorized' });
      expect(asked()).toEqual([]);
    });

    it('answers 403 no permission to a plain member before resolving', async () => {
      const { cookie } = await t.member('member');
      const asked = watchDns();
      const res = await create(cookie, 'hook', { url: 'https://servfail.example.com/' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ code: 'no permission' });
      expect(asked()).toEqual([]);
    });

    describe('with the cap reached', () => {
      let capped: TestApp;
      beforeAll(async () => {
        capped = await TestApp.start(kind, { zone: ZONE, env: { WEBHOOKS_PER_ORG_MAX: '1' } });
      });
      afterAll(() => capped?.close());

      it('answers 400 limit reached on create without resolving', async () => {
        const { cookie } = await capped.member('owner');
        const first = await capped.http().post('/api/webhook/first').set('Cookie', cookie).send({ url: 'https://8.8.8.8/' });
        expect(first.status).toBe(201);
        const before = capped.dns.questions.length;
        const res = await capped.http().post('/api/webhook/second').set('Cookie', cookie).send({ url: 'https://servfail.example.com/' });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ code: 'limit reached', message: ['an organization has at most 1 webhook'] });
        expect(capped.dns.questions.slice(before)).toEqual([]);
      });
    });
  });

  describe('PATCH', () => {
    it('does no DNS work for a patch of only nulls, even when the stored hosts would now fail', async () => {
      t.dns.set('flaky.example.com', { A: [PUBLIC_V4] });
      const cookie = await owner();
      await existing(cookie, 'hook', {
        url: 'https://flaky.example.com/',
        transaction: { created: 'https://flaky.example.com/created' },
        card: { updated: 'https://flaky.example.com/card' },
      });
      t.dns.set('flaky.example.com', 'SERVFAIL');
      const asked = watchDns();
      const res = await patch(cookie, 'hook', { transaction: null, card: { updated: null } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'hook', url: 'https://flaky.example.com/' });
      expect(asked()).toEqual([]);
    });

    it('re-checks a changed url and keeps the stored one when it is refused', async () => {
      const cookie = await owner();
      await existing(cookie, 'hook', { url: GOOD_URL });
      const asked = watchDns();
      const res = await patch(cookie, 'hook', { url: 'https://private.example.com/' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(invalidUrl(`url: ${NOT_PUBLIC}`));
      expect(asked().sort()).toEqual(questionsFor('private.example.com'));
      expect((await read(cookie, 'hook')).body).toEqual({ url: GOOD_URL });
    });

    it('stores a changed url that passes', async () => {
      const cookie = await owner();
      await existing(cookie, 'hook', { url: GOOD_URL });
      const res = await patch(cookie, 'hook', { url: 'https://v6-only.example.com/new' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'hook', url: 'https://v6-only.example.com/new' });
      expect((await read(cookie, 'hook')).body).toEqual({ url: 'https://v6-only.example.com/new' });
    });
  });

  describe('a 503 leaves nothing stored', () => {
    it('on create: the webhook does not exist afterwards', async () => {
      const cookie = await owner();
      expectDnsUnavailable(await create(cookie, 'hook', { url: 'https://servfail.example.com/' }));
      const after = await read(cookie, 'hook');
      expect(after.status).toBe(404);
      expect(after.body).toEqual({ code: 'not found' });
      expect((await list(cookie)).body).toEqual({});
    });

    it('on legacy create-or-update of an existing webhook: its URLs are unchanged', async () => {
      const cookie = await owner();
      const stored = { url: GOOD_URL, transaction: { created: 'https://other.example.com/created' } };
      await existing(cookie, 'hook', stored);
      expectDnsUnavailable(await replace(cookie, { name: 'hook', url: 'https://refused.example.com/' }));
      expect((await read(cookie, 'hook')).body).toEqual(stored);
    });

    it('on PATCH: the webhook is unchanged', async () => {
      const cookie = await owner();
      const stored = { url: GOOD_URL, user: { updated: 'https://other.example.com/user' } };
      await existing(cookie, 'hook', stored);
      expectDnsUnavailable(
        await patch(cookie, 'hook', { url: 'https://other.example.com/new', user: { updated: 'https://servfail.example.com/' } }),
      );
      expect((await read(cookie, 'hook')).body).toEqual(stored);
    });
  });
});
