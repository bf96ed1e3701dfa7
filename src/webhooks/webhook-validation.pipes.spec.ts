import fc from 'fast-check';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { rejectionOf, thrownBy } from '../../test/support/unit/domain-errors';
import type { RequestParts } from '../common/validation/request-input';
import {
  CreateWebhookPipe,
  DeleteWebhookByBodyPipe,
  ReplaceWebhookPipe,
  RotateSecretPipe,
  UpdateWebhookPipe,
  WebhookNamePipe,
} from './webhook-validation.pipes';
import type { UrlResolution } from '../url-safety/url-resolution';
import { validateParameters } from '../common/validation/validate-input';
import { WebhookPathDto } from './dto/webhook-path.dto';

const U = 'https://hooks.example.com/in';
const NAME_RULE = 'name: must match ^[a-z0-9-]{1,64}$';

const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const invalidName = (...message: string[]) => ({ status: 400, body: { code: 'invalid name', message } });
const invalidUrl = (...message: string[]) => ({ status: 400, body: { code: 'invalid url', message } });

/** A request to `…/webhook/{name}` with this body (the order of the checks is webhooks.controller.spec.ts's). */
const request = (body: unknown, name = 'hook'): RequestParts => ({ params: { name }, query: {}, body, headers: {} });
/** What the resolver says of the names beside a broken URL (only then do the pipes resolve): nothing wrong, unless a test says otherwise. */
const resolution = { check: vi.fn<UrlResolution['check']>(async () => ({ kind: 'ok' })) };
const pipe = <T>(type: new (resolution: UrlResolution) => T): T => new type(resolution as unknown as UrlResolution);
const create = (body: unknown) => pipe(CreateWebhookPipe).transform(request(body));
const replace = (body: unknown) => pipe(ReplaceWebhookPipe).transform({ ...request(body), params: {} });
const patch = async (body: unknown) => (await pipe(UpdateWebhookPipe).transform(request(body))).patch;
const del = (body: unknown) => new DeleteWebhookByBodyPipe().transform({ ...request(body), params: {} });

describe('WebhookNamePipe', () => {
  it.each([
    ['one letter', 'a'],
    ['one digit', '0'],
    ['one hyphen', '-'],
    ['letters, digits and hyphens', 'payments-prod-2'],
    ['64 characters', 'a'.repeat(64)],
  ])('accepts %s', (_, name) => {
    expect(new WebhookNamePipe().transform(request(undefined, name))).toBe(name);
  });

  it.each([
    ['an empty name', ''],
    ['65 characters', 'a'.repeat(65)],
    ['an uppercase letter', 'Payments'],
    ['an underscore', 'a_b'],
    ['a dot', 'a.b'],
    ['a space', 'a b'],
    ['a trailing newline', 'abc\n'],
    ['a non-ASCII letter', 'café'],
    ['a slash', 'a/b'],
  ])('refuses %s with 400 invalid name', (_, name) => {
    expect(thrownBy(() => new WebhookNamePipe().transform(request(undefined, name)))).toEqual(invalidName(NAME_RULE));
  });

  it('answers every name as WebhookPathDto does (its shortcut for names on the pattern included)', () => {
    /** The name returned, or the DomainError thrown (as the API would answer it). */
    const outcome = (run: () => string) => {
      try {
        return { name: run() };
      } catch {
        return { thrown: thrownBy(run) };
      }
    };
    const byPipe = (params: Record<string, unknown>) =>
      new WebhookNamePipe().transform({ params, query: {}, body: undefined, headers: {} });
    const byDto = (params: Record<string, unknown>) => validateParameters(WebhookPathDto, params).name;
    // Names on the pattern, near misses (a character or a length off), anything, and what is no string.
    const names = fc.oneof(
      fc.stringMatching(/^[a-z0-9-]{1,64}$/),
      fc.stringMatching(/^[a-zA-Z0-9_. \n-]{0,66}$/),
      fc.string({ maxLength: 70 }),
      fc.constantFrom(undefined, null, 7, ['a']),
    );
    fc.assert(
      fc.property(names, (name) => {
        const params = name === undefined ? {} : { name };
        expect(outcome(() => byPipe(params))).toEqual(outcome(() => byDto(params)));
      }),
    );
  });
});

describe('CreateWebhookPipe', () => {
  it('returns the path name and the draft with the normalized href and the hostname of each URL', async () => {
    expect(
      await create({
        url: 'HTTPS://Hooks.Example.COM:443/a/../in?x=1#frag',
        transaction: { created: 'https://t.example.com/created', completed: 'https://T.example.com./done' },
        user: { updated: 'https://u.example.com' },
      }),
    ).toEqual({
      name: 'hook',
      draft: {
        url: { href: 'https://hooks.example.com/in?x=1#frag', hostname: 'hooks.example.com' },
        events: {
          'transaction.created': { href: 'https://t.example.com/created', hostname: 't.example.com' },
          'transaction.completed': { href: 'https://t.example.com./done', hostname: 't.example.com.' },
          'user.updated': { href: 'https://u.example.com/', hostname: 'u.example.com' },
        },
      },
    });
  });

  it.each([
    ['a dotted IPv4 literal', 'https://8.8.8.8/h', 'https://8.8.8.8/h'],
    ['a decimal IPv4 literal', 'https://134744072/h', 'https://8.8.8.8/h'],
    ['a hex IPv4 literal', 'https://0x8.0x8.0x8.0x8/h', 'https://8.8.8.8/h'],
    ['a bracketed IPv6 literal', 'https://[2606:4700:4700:0::1111]/h', 'https://[2606:4700:4700::1111]/h'],
  ])('returns no hostname for %s', async (_, url, href) => {
    const { draft } = await create({ url });
    expect(draft.url.href).toBe(href);
    expect(draft.url.hostname).toBeUndefined();
  });

  it('takes a valid body name, which loses to the path name', async () => {
    expect((await create({ name: 'legacy-name', url: U })).name).toBe('hook');
  });

  it('stores nothing for a group given as {}', async () => {
    expect((await create({ url: U, transaction: {}, card: {} })).draft.events).toEqual({});
  });

  describe('which 400 code (docs/api.md 5)', () => {
    it.each([
      ['off the pattern', { name: 'Bad Name', url: U }],
      ['too long', { name: 'a'.repeat(65), url: U }],
      ['empty', { name: '', url: U }],
      ['a number', { name: 5, url: U }],
      ['null', { name: null, url: U }],
      ['an object', { name: { a: 1 }, url: U }],
    ])('answers invalid name for a body name %s', async (_, body) => {
      expect(await rejectionOf(create(body))).toEqual(invalidName(NAME_RULE));
    });

    it('answers invalid name, naming only the name, when the name and the shape are both wrong', async () => {
      expect(await rejectionOf(create({ name: 'BAD', url: 5, bogus: true, card: 'x' }))).toEqual(invalidName(NAME_RULE));
    });

    it('answers invalid name, not invalid url, when the name and a URL are both wrong', async () => {
      expect(await rejectionOf(create({ name: 'BAD', url: 'http://hooks.example.com/' }))).toEqual(invalidName(NAME_RULE));
    });

    it.each([
      ['a missing url', { name: 'ok' }, ['url: is required']],
      ['an empty body', {}, ['url: is required']],
      ['a null url (a type error, not a missing one)', { url: null }, ['url: must be a string']],
      ['a number url', { url: 5 }, ['url: must be a string']],
      ['an object url', { url: { href: U } }, ['url: must be a string']],
      ['an unknown top-level member', { url: U, bogus: 1 }, ['bogus: unknown member']],
      ['a secret', { url: U, secret: 'whsec_x' }, ['secret: unknown member']],
      ['an unknown group member', { url: U, transaction: { x: U } }, ['transaction.x: unknown member']],
      ['a non-string event URL', { url: U, transaction: { created: 5 } }, ['transaction.created: must be a string']],
      ['a null event URL', { url: U, card: { updated: null } }, ['card.updated: must be a string']],
      ['a null group', { url: U, user: null }, ['user: must be an object']],
      ['a string group', { url: U, user: 'https://u.example.com/' }, ['user: must be an object']],
      ['an array group', { url: U, card: [U] }, ['card: must be an object']],
    ])('answers bad request for %s', async (_, body, message) => {
      expect(await rejectionOf(create(body))).toEqual(badRequest(...message));
    });

    it('names every offending field in one bad request', async () => {
      const { status, body } = await rejectionOf(create({ url: 5, transaction: { created: 6, x: U }, bogus: true }));
      expect(status).toBe(400);
      expect((body as { code: string }).code).toBe('bad request');
      expect([...(body as { message: string[] }).message].sort()).toEqual([
        'bogus: unknown member',
        'transaction.created: must be a string',
        'transaction.x: unknown member',
        'url: must be a string',
      ]);
    });

    it('answers bad request, not invalid url, when the shape and a URL are both wrong', async () => {
      expect(await rejectionOf(create({ url: 'http://hooks.example.com/', bogus: 1 }))).toEqual(badRequest('bogus: unknown member'));
    });

    it.each([
      ['an array', [{ url: U }]],
      ['an empty array', []],
      ['a string', 'https://hooks.example.com/'],
      ['a number', 42],
      ['a boolean', true],
      ['null', null],
    ])('answers bad request for a body that is %s', async (_, body) => {
      expect(await rejectionOf(create(body))).toEqual(badRequest('body: must be a JSON object'));
    });

    it('answers invalid url naming each failing field and its rule', async () => {
      expect(
        await rejectionOf(
          create({
            url: 'http://hooks.example.com/',
            transaction: { created: U, updated: 'https://localhost/x' },
            card: { updated: 'https://10.0.0.1/' },
            user: { updated: 'https://hooks.internal/' },
          }),
        ),
      ).toEqual(
        invalidUrl(
          'url: must use https',
          'transaction.updated: must not point to localhost',
          'card.updated: must not point to a private, loopback or reserved address',
          'user.updated: host must not be a special-use name',
        ),
      );
    });

    it.each([
      ['a username', 'https://user@hooks.example.com/', 'url: must not contain a username or password'],
      ['port 0', 'https://hooks.example.com:0/', 'url: port must be between 1 and 65535'],
      ['a single-label host', 'https://hooks/', 'url: host must be a fully qualified domain name'],
      ['not a URL', 'not a url', 'url: must not contain whitespace, control or invisible characters'],
      ['a relative URL', '/relative', 'url: must be an absolute URL'],
      ['a private IPv6 literal', 'https://[fd00::1]/', 'url: must not point to a private, loopback or reserved address'],
    ])('answers invalid url for %s', async (_, url, message) => {
      expect(await rejectionOf(create({ url }))).toEqual(invalidUrl(message));
    });
  });

  describe('the names beside a broken URL (docs/api.md 5.1, rule 7)', () => {
    beforeEach(() => resolution.check.mockClear());

    it("resolves no name when every URL passes the static rules: DNS is the service's, after its own checks", async () => {
      await create({ url: U, card: { updated: 'https://c.example.com/x' } });
      expect(resolution.check).not.toHaveBeenCalled();
    });

    it('resolves the other named URLs, and not the broken one or an IP literal', async () => {
      await rejectionOf(
        create({
          url: 'http://hooks.example.com/',
          card: { updated: 'https://c.example.com:8443/x' },
          user: { updated: 'https://1.1.1.1/' },
        }),
      );
      expect(resolution.check).toHaveBeenCalledWith([{ field: 'card.updated', hostname: 'c.example.com', port: 8443 }]);
    });

    it('names their 400s beside the static problem, in the order of the fields', async () => {
      resolution.check.mockResolvedValueOnce({ kind: 'invalid', messages: ['user.updated: does not resolve', 'url: does not resolve'] });
      const body = {
        url: 'https://hooks.example.com/',
        card: { updated: 'http://c.example.com/' },
        user: { updated: 'https://u.example.com/' },
      };
      expect(await rejectionOf(create(body))).toEqual(
        invalidUrl('url: does not resolve', 'card.updated: must use https', 'user.updated: does not resolve'),
      );
    });

    it('answers the static problem alone when resolving the others fails: the 400 wins over the 503', async () => {
      resolution.check.mockResolvedValueOnce({ kind: 'unavailable' });
      expect(await rejectionOf(patch({ url: 'http://hooks.example.com/', card: { updated: 'https://c.example.com/' } }))).toEqual(
        invalidUrl('url: must use https'),
      );
    });
  });

  describe('prototype keys', () => {
    it.each([
      ['__proto__ at the top level', `{"url":"${U}","__proto__":{"polluted":"yes"}}`, '__proto__: unknown member'],
      ['constructor at the top level', `{"url":"${U}","constructor":{"prototype":{"polluted":"yes"}}}`, 'constructor: unknown member'],
      ['prototype at the top level', `{"url":"${U}","prototype":{"polluted":"yes"}}`, 'prototype: unknown member'],
      ['__proto__ in a group', `{"url":"${U}","transaction":{"__proto__":{"polluted":"yes"}}}`, 'transaction.__proto__: unknown member'],
      [
        'constructor in a group',
        `{"url":"${U}","card":{"constructor":{"prototype":{"polluted":"yes"}}}}`,
        'card.constructor: unknown member',
      ],
      ['prototype in a group', `{"url":"${U}","user":{"prototype":"yes"}}`, 'user.prototype: unknown member'],
    ])('answers bad request for %s and leaves Object.prototype alone', async (_, json, message) => {
      const body: unknown = JSON.parse(json);
      expect(await rejectionOf(create(body))).toEqual(badRequest(message));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
    });

    it('builds its fixtures with own properties (JSON.parse, not literals)', () => {
      expect(Object.keys(JSON.parse('{"__proto__":{}}'))).toEqual(['__proto__']);
    });
  });
});

describe('ReplaceWebhookPipe (legacy create-or-update)', () => {
  it('returns the name and the draft', async () => {
    expect(await replace({ name: 'hook-1', url: U, card: { updated: 'https://c.example.com/x' } })).toEqual({
      name: 'hook-1',
      draft: {
        url: { href: U, hostname: 'hooks.example.com' },
        events: { 'card.updated': { href: 'https://c.example.com/x', hostname: 'c.example.com' } },
      },
    });
  });

  it.each([
    ['missing', { url: U }, 'name: is required'],
    ['null', { name: null, url: U }, NAME_RULE],
    ['a number', { name: 1, url: U }, NAME_RULE],
    ['off the pattern', { name: 'Hook', url: U }, NAME_RULE],
  ])('answers invalid name for a name %s', async (_, body, message) => {
    expect(await rejectionOf(replace(body))).toEqual(invalidName(message));
  });

  it('answers invalid name when the name is missing and the URL is missing too', async () => {
    expect(await rejectionOf(replace({}))).toEqual(invalidName('name: is required'));
  });

  it('answers bad request for a missing url', async () => {
    expect(await rejectionOf(replace({ name: 'hook-1' }))).toEqual(badRequest('url: is required'));
  });

  it('answers bad request for a null event (no nulls in the legacy body)', async () => {
    expect(await rejectionOf(replace({ name: 'hook-1', url: U, transaction: { created: null } }))).toEqual(
      badRequest('transaction.created: must be a string'),
    );
  });

  it('answers bad request for a secret in the body', async () => {
    expect(await rejectionOf(replace({ name: 'hook-1', url: U, secret: 'whsec_x' }))).toEqual(badRequest('secret: unknown member'));
  });

  it('answers invalid url for a URL that breaks the rules', async () => {
    expect(await rejectionOf(replace({ name: 'hook-1', url: 'https://a.local/' }))).toEqual(
      invalidUrl('url: host must not be a special-use name'),
    );
  });

  it.each([
    ['an array', [{ name: 'hook-1', url: U }]],
    ['a string', 'hook-1'],
    ['null', null],
  ])('answers bad request for a body that is %s', async (_, body) => {
    expect(await rejectionOf(replace(body))).toEqual(badRequest('body: must be a JSON object'));
  });

  it('answers bad request for __proto__ (own property) and leaves Object.prototype alone', async () => {
    const body: unknown = JSON.parse(`{"name":"hook-1","url":"${U}","__proto__":{"polluted":"yes"}}`);
    expect(await rejectionOf(replace(body))).toEqual(badRequest('__proto__: unknown member'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('UpdateWebhookPipe', () => {
  it('changes nothing for {}', async () => {
    const result = await patch({});
    expect(result).toEqual({ events: {} });
    expect('url' in result).toBe(false);
  });

  it('returns a new url, normalized, with its hostname', async () => {
    expect(await patch({ url: 'https://NEW.example.com' })).toEqual({
      url: { href: 'https://new.example.com/', hostname: 'new.example.com' },
      events: {},
    });
  });

  it('returns no hostname for an IP literal url', async () => {
    const result = await patch({ url: 'https://1.1.1.1/x' });
    expect(result.url?.href).toBe('https://1.1.1.1/x');
    expect(result.url?.hostname).toBeUndefined();
  });

  it('clears every event of a group given as null', async () => {
    expect(await patch({ transaction: null })).toEqual({
      events: { 'transaction.created': null, 'transaction.updated': null, 'transaction.completed': null },
    });
  });

  it.each([
    ['card', { card: null }, { 'card.updated': null }],
    ['user', { user: null }, { 'user.updated': null }],
  ])('clears the %s group given as null', async (_, body, events) => {
    expect(await patch(body)).toEqual({ events });
  });

  it('clears an event given as null and sets one given as a URL', async () => {
    expect(await patch({ transaction: { created: null, updated: 'https://t.example.com/u' } })).toEqual({
      events: {
        'transaction.created': null,
        'transaction.updated': { href: 'https://t.example.com/u', hostname: 't.example.com' },
      },
    });
  });

  it('changes nothing for a group given as {}', async () => {
    expect(await patch({ card: {} })).toEqual({ events: {} });
  });

  it('answers bad request for a null url', async () => {
    expect(await rejectionOf(patch({ url: null }))).toEqual(badRequest('url: must be a string'));
  });

  it.each([
    ['a valid name', { name: 'new-name' }],
    ['an invalid name', { name: 'New Name' }],
    ['a non-string name', { name: 5 }],
  ])('answers bad request, not invalid name, for %s', async (_, body) => {
    expect(await rejectionOf(patch(body))).toEqual(badRequest('name: unknown member'));
  });

  it.each([
    ['a non-string event', { card: { updated: 5 } }, 'card.updated: must be a string'],
    ['a group that is a string', { transaction: 'x' }, 'transaction: must be an object'],
    ['an unknown member in a group', { user: { created: U } }, 'user.created: unknown member'],
    ['a secret', { secret: 'whsec_x' }, 'secret: unknown member'],
  ])('answers bad request for %s', async (_, body, message) => {
    expect(await rejectionOf(patch(body))).toEqual(badRequest(message));
  });

  it('answers invalid url naming each failing field, null events aside', async () => {
    expect(
      await rejectionOf(patch({ url: 'ftp://hooks.example.com/', transaction: { created: null, completed: 'https://127.0.0.1/' } })),
    ).toEqual(invalidUrl('url: must use https', 'transaction.completed: must not point to a private, loopback or reserved address'));
  });

  it.each([
    ['an array', [{ url: U }]],
    ['a string', U],
    ['null', null],
  ])('answers bad request for a body that is %s', async (_, body) => {
    expect(await rejectionOf(patch(body))).toEqual(badRequest('body: must be a JSON object'));
  });

  it('answers bad request for __proto__ in a group (own property) and leaves Object.prototype alone', async () => {
    const body: unknown = JSON.parse('{"card":{"__proto__":{"polluted":"yes"}}}');
    expect(await rejectionOf(patch(body))).toEqual(badRequest('card.__proto__: unknown member'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('DeleteWebhookByBodyPipe (legacy delete)', () => {
  it('returns the name', () => {
    expect(del({ name: 'hook-1' })).toBe('hook-1');
  });

  it.each([
    ['an undefined body (none sent)', undefined, 'name: is required'],
    ['an empty body', {}, 'name: is required'],
    ['a null name', { name: null }, NAME_RULE],
    ['a number name', { name: 7 }, NAME_RULE],
    ['a name off the pattern', { name: 'Hook 1' }, NAME_RULE],
  ])('answers invalid name for %s', (_, body, message) => {
    expect(thrownBy(() => del(body))).toEqual(invalidName(message));
  });

  it('answers bad request for an unknown member beside a valid name', () => {
    expect(thrownBy(() => del({ name: 'hook-1', url: U }))).toEqual(badRequest('url: unknown member'));
  });

  it('answers invalid name for a body without its name that holds a key class-transformer would hide', () => {
    expect(thrownBy(() => del(JSON.parse('{"toString":1}')))).toEqual(invalidName('name: is required'));
  });

  it('answers bad request, and nothing worse, for a prototype key inside a group beside a valid name', () => {
    const body: unknown = JSON.parse(`{"name":"a","card":{"updated":"${U}","constructor":{"prototype":{"polluted":1}}}}`);
    expect(thrownBy(() => del(body))).toEqual(badRequest('card: unknown member'));
  });

  it.each([
    ['an array', ['hook-1']],
    ['a string', 'hook-1'],
    ['null', null],
  ])('answers bad request for a body that is %s', (_, body) => {
    expect(thrownBy(() => del(body))).toEqual(badRequest('body: must be a JSON object'));
  });
});

describe('RotateSecretPipe (docs/api.md 10.7)', () => {
  const rotate = (body: unknown) => new RotateSecretPipe().transform(request(body)).graceSeconds;

  it.each([
    ['no body', undefined, 86_400],
    ['{}', {}, 86_400],
    ['0 (drop the previous secret at once)', { graceSeconds: 0 }, 0],
    ['the longest grace', { graceSeconds: 604_800 }, 604_800],
  ])('takes %s', (_, body, grace) => {
    expect(rotate(body)).toBe(grace);
  });

  it('refuses a null graceSeconds with 400 bad request, rather than keeping the old secret for the default day', () => {
    expect(thrownBy(() => rotate({ graceSeconds: null }))).toEqual(badRequest('graceSeconds: must be a whole number of seconds'));
  });

  it('names the range of a grace outside it, once', () => {
    expect(thrownBy(() => rotate({ graceSeconds: 604_801 }))).toEqual(badRequest('graceSeconds: must be from 0 to 604800'));
  });

  it.each([
    ['a negative grace', { graceSeconds: -1 }],
    ['a grace past a week', { graceSeconds: 604_801 }],
    ['a fraction', { graceSeconds: 1.5 }],
    ['a string', { graceSeconds: '60' }],
    ['an unknown member', { grace: 60 }],
    ['a body that is not an object', [60]],
  ])('refuses %s with 400 bad request', (_, body) => {
    expect(thrownBy(() => rotate(body))).toMatchObject({ status: 400, body: { code: 'bad request' } });
  });
});

describe('rateLimit (docs/api.md 10.10)', () => {
  const RATE_RULE = 'rateLimit: must be a whole number of deliveries per second from 1 to 10000';
  const OUT_OF_RANGE: [string, unknown][] = [
    ['0', 0],
    ['10001', 10_001],
    ['a fraction', 1.5],
    ['a string', '5'],
    ['true', true],
  ];

  it.each([1, 10_000])('takes %d on create and on the legacy create-or-update', async (rateLimit) => {
    expect((await create({ url: U, rateLimit })).draft.rateLimit).toBe(rateLimit);
    expect((await replace({ name: 'legacy', url: U, rateLimit })).draft.rateLimit).toBe(rateLimit);
  });

  it.each([...OUT_OF_RANGE, ['null', null]])('refuses %s on create and on the legacy create-or-update', async (_, rateLimit) => {
    expect(await rejectionOf(create({ url: U, rateLimit }))).toEqual(badRequest(RATE_RULE));
    expect(await rejectionOf(replace({ name: 'legacy', url: U, rateLimit }))).toEqual(badRequest(RATE_RULE));
  });

  it.each(OUT_OF_RANGE)('refuses %s in a patch', async (_, rateLimit) => {
    expect(await rejectionOf(patch({ rateLimit }))).toEqual(badRequest(RATE_RULE));
  });

  it('clears the limit with null in a patch', async () => {
    expect((await patch({ rateLimit: null })).rateLimit).toBeNull();
  });
});

describe('events (docs/api.md 10.13)', () => {
  const EVENTS_ITEM_RULE =
    'is not one of transaction.created, transaction.updated, transaction.completed, card.updated, user.updated, transaction.*, card.*, user.*';

  it('takes types and group wildcards, in the order sent, on create, on the legacy create-or-update and in a patch', async () => {
    const events = ['user.updated', 'card.*', 'transaction.created', 'transaction.*'];
    expect((await create({ url: U, events })).draft.eventTypes).toEqual(events);
    expect((await replace({ name: 'legacy', url: U, events })).draft.eventTypes).toEqual(events);
    expect((await patch({ events })).eventTypes).toEqual(events);
  });

  it('leaves them out when not given', async () => {
    expect((await create({ url: U })).draft).not.toHaveProperty('eventTypes');
    expect(await patch({})).not.toHaveProperty('eventTypes');
  });

  it('clears them with null in a patch, and refuses null on create and on the legacy create-or-update', async () => {
    expect((await patch({ events: null })).eventTypes).toBeNull();
    expect(await rejectionOf(create({ url: U, events: null }))).toEqual(badRequest('events: must be an array of event types'));
    expect(await rejectionOf(replace({ name: 'legacy', url: U, events: null }))).toEqual(
      badRequest('events: must be an array of event types'),
    );
  });

  it.each([
    ['an empty list', [], 'events: must list at least one event type'],
    ['an unknown type', ['card.updated', 'card.created'], `events: item 2 ${EVENTS_ITEM_RULE}`],
    ['webhook.test', ['webhook.test'], `events: item 1 ${EVENTS_ITEM_RULE}`],
    ['webhook.disabled', ['webhook.disabled'], `events: item 1 ${EVENTS_ITEM_RULE}`],
    ['a wildcard of no group', ['webhook.*'], `events: item 1 ${EVENTS_ITEM_RULE}`],
    ['the wildcard of everything', ['*'], `events: item 1 ${EVENTS_ITEM_RULE}`],
    ['a type in capitals', ['CARD.UPDATED'], `events: item 1 ${EVENTS_ITEM_RULE}`],
    ['a number', [1], `events: item 1 ${EVENTS_ITEM_RULE}`],
    ['a duplicate', ['card.*', 'user.updated', 'card.*'], 'events: card.* is listed twice'],
    ['a string', 'card.updated', 'events: must be an array of event types'],
    ['an object', { 'card.updated': true }, 'events: must be an array of event types'],
  ])('refuses %s with 400 bad request, on create, legacy and patch', async (_, events, message) => {
    expect(await rejectionOf(create({ url: U, events }))).toEqual(badRequest(message));
    expect(await rejectionOf(replace({ name: 'legacy', url: U, events }))).toEqual(badRequest(message));
    expect(await rejectionOf(patch({ events }))).toEqual(badRequest(message));
  });

  it('takes a type beside its own group wildcard (no duplicate: two different items)', async () => {
    expect((await create({ url: U, events: ['card.*', 'card.updated'] })).draft.eventTypes).toEqual(['card.*', 'card.updated']);
  });
});

describe('headers (docs/api.md 10.15)', () => {
  it('takes the headers as sent on create and on the legacy create-or-update, as a list in their order', async () => {
    const headers = { 'X-Api-Key': 'k3y', Authorization: 'Bearer abc' };
    const list = [
      ['X-Api-Key', 'k3y'],
      ['Authorization', 'Bearer abc'],
    ];
    expect((await create({ url: U, headers })).draft.headers).toEqual(list);
    expect((await replace({ name: 'legacy', url: U, headers })).draft.headers).toEqual(list);
  });

  it('takes a patch as sent: members null remove one, null removes every one', async () => {
    expect((await patch({ headers: { 'X-Api-Key': null, 'X-New': 'v' } })).headers).toEqual({ 'X-Api-Key': null, 'X-New': 'v' });
    expect((await patch({ headers: null })).headers).toBeNull();
  });

  it('refuses a refused name, a bad value and null with 400 bad request, never quoting a value', async () => {
    const body = { url: U, headers: { Host: 'internal.example', 'X-Api-Key': ' s3cret-value', 'X-Other': null } };
    const seen = await rejectionOf(create(body));
    expect(seen).toEqual(
      badRequest(
        'headers: Host: not allowed (the service or the connection sets it); ' +
          'X-Api-Key: value must be 1 to 1024 visible ASCII characters or spaces, with no space first or last; ' +
          'X-Other: value must be a string',
      ),
    );
    expect(JSON.stringify(seen)).not.toMatch(/s3cret-value|internal\.example/);
  });

  it('refuses null headers on create and on the legacy create-or-update', async () => {
    expect(await rejectionOf(create({ url: U, headers: null }))).toEqual(
      badRequest('headers: must be an object of header names and values'),
    );
    expect(await rejectionOf(replace({ name: 'legacy', url: U, headers: null }))).toEqual(
      badRequest('headers: must be an object of header names and values'),
    );
  });

  it('takes any HTTP token as a header name, constructor and __proto__ included', async () => {
    const body: unknown = JSON.parse(`{"url":"${U}","headers":{"constructor":"v","__proto__":"w","toString":"x"}}`);
    expect((await create(body)).draft.headers).toEqual([
      ['constructor', 'v'],
      ['__proto__', 'w'],
      ['toString', 'x'],
    ]);
    expect((await patch(JSON.parse('{"headers":{"constructor":null}}'))).headers).toEqual({ constructor: null });
  });
});
