import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';
import { EVENTS, HOOK, NAME_RULE, OTHER, PUBLIC_ZONE, SECRET, webhookClient, type Member } from '../support/webhook-client';

/*
 * The webhook operations of docs/api.md 5.3 through HTTP: create, read, update (JSON Merge Patch) and
 * delete, with the source-row invariant of docs/api.md 5 checked after every write.
 */

const INVALID_NAME = { code: 'invalid name', message: [NAME_RULE] };
const NOT_FOUND = { code: 'not found' };
const OK = { code: 'ok' };

type ErrorBody = { code: string; message?: string[] };

/** `message` in a stable order, for answers naming several fields. */
const sortedMessages = (body: ErrorBody): ErrorBody => ({ ...body, message: [...(body.message ?? [])].sort() });

describeEachDatabase('webhooks CRUD', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: PUBLIC_ZONE });
  });
  afterAll(() => t?.close());
  const api = webhookClient(() => t);
  const owner = () => t.member('owner');

  describe('POST /api/webhook/{name}', () => {
    it('answers 201 with exactly the name, the URL and the secret', async () => {
      const m = await owner();
      const res = await api.create(m, 'payments', { url: `${HOOK}in` });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name: 'payments', url: `${HOOK}in`, secret: expect.stringMatching(SECRET) });
      await api.expectSourceInvariant(m);
    });

    it('answers the groups and events that were given, and only those', async () => {
      const m = await owner();
      const body = {
        url: `${HOOK}all`,
        transaction: { created: `${EVENTS}tc`, completed: `${EVENTS}tx-done` },
        card: { updated: `${OTHER}card` },
        user: { updated: `${EVENTS}user` },
      };
      const res = await api.create(m, 'grouped', body);
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name: 'grouped', ...body, secret: expect.stringMatching(SECRET) });
      await api.expectSourceInvariant(m);
    });

    it('gives every webhook its own secret', async () => {
      const m = await owner();
      const first = await api.create(m, 'first', { url: HOOK });
      const second = await api.create(m, 'second', { url: HOOK });
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(first.body.secret).toMatch(SECRET);
      expect(second.body.secret).toMatch(SECRET);
      expect(first.body.secret).not.toBe(second.body.secret);
    });

    it('stores the secret sealed, never the secret itself', async () => {
      const m = await owner();
      const res = await api.create(m, 'sealed', { url: HOOK });
      expect(res.status).toBe(201);
      const stored = await api.storedColumn(m, 'sealed', 'secret');
      expect(stored).not.toContain(res.body.secret);
      expect(stored).not.toContain(res.body.secret.slice('whsec_'.length));
    });

    it('stores and answers the WHATWG-normalized href', async () => {
      const m = await owner();
      const res = await api.create(m, 'normalized', {
        url: 'HTTPS://Hooks.Example.com:443/a/../b',
        card: { updated: 'https://EVENTS.example.com/x/./y?q=1' },
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        name: 'normalized',
        url: 'https://hooks.example.com/b',
        card: { updated: 'https://events.example.com/x/y?q=1' },
        secret: expect.stringMatching(SECRET),
      });
      expect(await api.storedColumn(m, 'normalized', 'url')).toBe('https://hooks.example.com/b');
      expect((await api.read(m, 'normalized')).body).toEqual({
        url: 'https://hooks.example.com/b',
        card: { updated: 'https://events.example.com/x/y?q=1' },
      });
    });

    it('stores nothing for a group given as {}', async () => {
      const m = await owner();
      const res = await api.create(m, 'empty-group', { url: HOOK, transaction: {}, user: { updated: `${EVENTS}u` } });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name: 'empty-group', url: HOOK, user: { updated: `${EVENTS}u` }, secret: expect.stringMatching(SECRET) });
      expect((await api.read(m, 'empty-group')).body).toEqual({ url: HOOK, user: { updated: `${EVENTS}u` } });
    });

    it('accepts a body name equal to the path name', async () => {
      const m = await owner();
      const res = await api.create(m, 'same', { name: 'same', url: HOOK });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name: 'same', url: HOOK, secret: expect.stringMatching(SECRET) });
    });

    it('accepts a body name different from the path name, and the path name wins', async () => {
      const m = await owner();
      const res = await api.create(m, 'from-path', { name: 'from-body', url: HOOK });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name: 'from-path', url: HOOK, secret: expect.stringMatching(SECRET) });
      expect((await api.read(m, 'from-path')).status).toBe(200);
      expect((await api.read(m, 'from-body')).status).toBe(404);
      expect((await api.list(m)).body).toEqual({ 'from-path': { url: HOOK } });
    });

    it.each([
      ['off the pattern', 'Bad_Name'],
      ['not a string', 42],
      ['null', null],
      ['empty', ''],
    ])('answers 400 invalid name for a body name that is %s, even when the path name is fine', async (_, name) => {
      const m = await owner();
      const res = await api.create(m, 'fine', { name, url: HOOK });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID_NAME);
      await api.expectSourceInvariant(m);
    });

    it.each([
      ['with uppercase letters', 'Payments'],
      ['of 65 characters', 'a'.repeat(65)],
      ['with an underscore', 'pay_ments'],
      ['with a percent-encoded slash', 'a%2Fb'],
      ['with a dot', 'a.b'],
    ])('answers 400 invalid name for a path name %s', async (_, name) => {
      const m = await owner();
      const res = await api.create(m, name, { url: HOOK });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID_NAME);
      await api.expectSourceInvariant(m);
    });

    it.each([
      ['a body of the wrong shape', { url: 7 }],
      ['a URL that breaks the rules', { url: 'http://hooks.example.com/' }],
    ])('answers a path name off the pattern 400 invalid name before %s (docs/api.md 5, which 400)', async (_, body) => {
      const m = await owner();
      expect((await api.create(m, 'NOPE', body)).body).toEqual(INVALID_NAME);
    });

    it('accepts a name of exactly 64 characters', async () => {
      const m = await owner();
      const name = `${'a1-'.repeat(21)}z`;
      expect(name).toHaveLength(64);
      const res = await api.create(m, name, { url: HOOK });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name, url: HOOK, secret: expect.stringMatching(SECRET) });
    });

    it.each<[string, unknown, string[]]>([
      ['a missing url', {}, ['url: is required']],
      ['a url that is not a string', { url: 42 }, ['url: must be a string']],
      ['a null url', { url: null }, ['url: must be a string']],
      ['a group that is a string', { url: HOOK, transaction: `${EVENTS}t` }, ['transaction: must be an object']],
      ['a group that is an array', { url: HOOK, card: [`${EVENTS}c`] }, ['card: must be an object']],
      ['a null group', { url: HOOK, user: null }, ['user: must be an object']],
      ['a null event URL', { url: HOOK, transaction: { created: null } }, ['transaction.created: must be a string']],
      ['an event URL that is a number', { url: HOOK, card: { updated: 7 } }, ['card.updated: must be a string']],
      ['an unknown top-level member', { url: HOOK, retries: 3 }, ['retries: unknown member']],
      ['an unknown group member', { url: HOOK, transaction: { deleted: `${EVENTS}d` } }, ['transaction.deleted: unknown member']],
      ['a secret', { url: HOOK, secret: `whsec_${'A'.repeat(43)}=` }, ['secret: unknown member']],
      ['an array body', [{ url: HOOK }], ['body: must be a JSON object']],
    ])('answers 400 bad request naming the field for %s', async (_, body, message) => {
      const m = await owner();
      const res = await api.create(m, 'shape', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'bad request', message });
      expect((await api.list(m)).body).toEqual({});
      await api.expectSourceInvariant(m);
    });

    it('names every offending field of a bad request', async () => {
      const m = await owner();
      const res = await api.create(m, 'shape', {
        url: 42,
        transaction: { created: null, deleted: HOOK },
        card: 'nope',
        extra: true,
      });
      expect(res.status).toBe(400);
      expect(sortedMessages(res.body)).toEqual({
        code: 'bad request',
        message: [
          'card: must be an object',
          'extra: unknown member',
          'transaction.created: must be a string',
          'transaction.deleted: unknown member',
          'url: must be a string',
        ],
      });
    });

    it('answers 409 name conflict for a name the organization already has, and keeps the first', async () => {
      const m = await owner();
      expect((await api.create(m, 'taken', { url: `${HOOK}first` })).status).toBe(201);
      const res = await api.create(m, 'taken', { url: `${HOOK}second` });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 'name conflict' });
      expect((await api.read(m, 'taken')).body).toEqual({ url: `${HOOK}first` });
      await api.expectSourceInvariant(m);
    });

    it('answers 409 name conflict before resolving any URL', async () => {
      const m = await owner();
      await api.create(m, 'taken', { url: HOOK });
      const res = await api.create(m, 'taken', { url: 'https://conflict-unasked.example.com/' });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ code: 'name conflict' });
      expect(t.dns.questions.filter((q) => q.endsWith(' conflict-unasked.example.com'))).toEqual([]);
    });

    it('answers 400 invalid url for a host that does not resolve, and makes no source row', async () => {
      const m = await owner();
      const res = await api.create(m, 'nowhere', { url: 'https://nowhere.example.com/' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid url', message: ['url: does not resolve'] });
      expect(await api.sourceRows(m)).toBe(0);
      expect((await api.list(m)).body).toEqual({});
    });

    it('accepts a name that another organization already has', async () => {
      const a = await owner();
      const b = await owner();
      expect((await api.create(a, 'shared', { url: `${HOOK}a` })).status).toBe(201);
      const res = await api.create(b, 'shared', { url: `${HOOK}b` });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ name: 'shared', url: `${HOOK}b`, secret: expect.stringMatching(SECRET) });
      expect((await api.read(a, 'shared')).body).toEqual({ url: `${HOOK}a` });
      await api.expectSourceInvariant(a);
      await api.expectSourceInvariant(b);
    });
  });

  describe('GET /api/webhook', () => {
    it('answers {} when the organization has no webhook', async () => {
      const m = await owner();
      const res = await api.list(m);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      expect(res.text).toBe('{}');
    });

    it('sorts the names bytewise in the JSON text, integer-like names included', async () => {
      const m = await owner();
      for (const name of ['10', '9', 'a-1', 'a', '0']) {
        expect((await api.create(m, name, { url: `${HOOK}${name}` })).status).toBe(201);
      }
      const res = await api.list(m);
      expect(res.status).toBe(200);
      // A parsed object puts integer-like keys first whatever the text said: read the text.
      const sorted = ['0', '10', '9', 'a', 'a-1'];
      expect([...res.text.matchAll(/"([^"]+)"\s*:\s*\{/g)].map(([, key]) => key)).toEqual(sorted);
      expect(res.body).toEqual(Object.fromEntries(sorted.map((name) => [name, { url: `${HOOK}${name}` }])));
    });

    it('answers each webhook as its URL and only the groups and events that are set, with no name or secret', async () => {
      const m = await owner();
      await api.create(m, 'plain', { url: `${HOOK}plain` });
      await api.create(m, 'full', {
        url: `${HOOK}full`,
        transaction: { created: `${EVENTS}tc`, completed: `${EVENTS}tx` },
        user: { updated: `${OTHER}u` },
      });
      const res = await api.list(m);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        full: { url: `${HOOK}full`, transaction: { created: `${EVENTS}tc`, completed: `${EVENTS}tx` }, user: { updated: `${OTHER}u` } },
        plain: { url: `${HOOK}plain` },
      });
    });

    it("lists only the caller's organization's webhooks", async () => {
      const a = await owner();
      const b = await owner();
      await api.create(a, 'mine', { url: HOOK });
      await api.create(b, 'theirs', { url: HOOK });
      const res = await api.list(a);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ mine: { url: HOOK } });
    });
  });

  describe('GET /api/webhook/{name}', () => {
    it('answers the URL and the groups set, with no name or secret', async () => {
      const m = await owner();
      await api.create(m, 'one', { url: HOOK, card: { updated: `${EVENTS}card` } });
      const res = await api.read(m, 'one');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: HOOK, card: { updated: `${EVENTS}card` } });
    });

    it('answers 404 not found for an unknown name', async () => {
      const m = await owner();
      const res = await api.read(m, 'missing');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    });

    it("answers 404 not found for another organization's webhook", async () => {
      const a = await owner();
      const b = await owner();
      await api.create(a, 'private', { url: HOOK });
      const res = await api.read(b, 'private');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    });

    it('answers 400 invalid name for a name off the pattern', async () => {
      const m = await owner();
      const res = await api.read(m, 'Not_Valid');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID_NAME);
    });
  });

  describe.each(['application/json', 'application/merge-patch+json'])('PATCH /api/webhook/{name} as %s', (type) => {
    const patch = (m: Member, name: string, body: unknown) => api.patch(m, name, body, type);
    const FULL = {
      url: HOOK,
      transaction: { created: `${EVENTS}tc`, updated: `${EVENTS}tu` },
      card: { updated: `${EVENTS}card` },
    };
    /** A member with the webhook `w` = FULL. */
    const withWebhook = async () => {
      const m = await owner();
      const created = await api.create(m, 'w', FULL);
      expect(created.status).toBe(201);
      return { m, secret: created.body.secret as string };
    };

    it('changes the members present and keeps the ones omitted', async () => {
      const { m } = await withWebhook();
      const res = await patch(m, 'w', { url: 'HTTPS://Other.Example.com/New', transaction: { completed: `${OTHER}done` } });
      expect(res.status).toBe(200);
      const expected = {
        url: `${OTHER}New`,
        transaction: { created: `${EVENTS}tc`, updated: `${EVENTS}tu`, completed: `${OTHER}done` },
        card: { updated: `${EVENTS}card` },
      };
      expect(res.body).toEqual({ name: 'w', ...expected });
      expect((await api.read(m, 'w')).body).toEqual(expected);
      await api.expectSourceInvariant(m);
    });

    it('clears an event URL given as null', async () => {
      const { m } = await withWebhook();
      const res = await patch(m, 'w', { transaction: { updated: null } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'w', url: HOOK, transaction: { created: `${EVENTS}tc` }, card: { updated: `${EVENTS}card` } });
      expect((await api.read(m, 'w')).body).toEqual({
        url: HOOK,
        transaction: { created: `${EVENTS}tc` },
        card: { updated: `${EVENTS}card` },
      });
    });

    it('clears a whole group given as null', async () => {
      const { m } = await withWebhook();
      const res = await patch(m, 'w', { transaction: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'w', url: HOOK, card: { updated: `${EVENTS}card` } });
      expect((await api.read(m, 'w')).body).toEqual({ url: HOOK, card: { updated: `${EVENTS}card` } });
    });

    it('drops a group whose last event URL is cleared', async () => {
      const { m } = await withWebhook();
      const res = await patch(m, 'w', { card: { updated: null } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'w', url: HOOK, transaction: FULL.transaction });
      expect((await api.read(m, 'w')).body).toEqual({ url: HOOK, transaction: FULL.transaction });
    });

    it('answers the stored webhook unchanged for {}', async () => {
      const { m } = await withWebhook();
      const res = await patch(m, 'w', {});
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'w', ...FULL });
      expect((await api.read(m, 'w')).body).toEqual(FULL);
    });

    it('changes nothing for a group given as {}', async () => {
      const { m } = await withWebhook();
      const res = await patch(m, 'w', { transaction: {}, user: {} });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ name: 'w', ...FULL });
    });

    it('keeps the signing secret', async () => {
      const { m, secret } = await withWebhook();
      const sealedBefore = await api.storedColumn(m, 'w', 'secret');
      expect((await patch(m, 'w', { url: `${OTHER}rotated`, user: { updated: `${EVENTS}u` } })).status).toBe(200);
      expect(await api.storedColumn(m, 'w', 'secret')).toBe(sealedBefore);
      // The legacy create-or-update answers the kept secret.
      const legacy = await api.upsert(m, { name: 'w', url: HOOK });
      expect(legacy.status).toBe(200);
      expect(legacy.body.secret).toBe(secret);
    });

    it.each<[string, unknown, string[]]>([
      ['a null url', { url: null }, ['url: must be a string']],
      ['a url that is not a string', { url: 1 }, ['url: must be a string']],
      ['a name equal to the path name', { name: 'w' }, ['name: unknown member']],
      ['a new name', { name: 'renamed', url: HOOK }, ['name: unknown member']],
      ['an unknown member', { enabled: false }, ['enabled: unknown member']],
      ['an unknown group member', { card: { created: `${EVENTS}c` } }, ['card.created: unknown member']],
      ['a secret', { secret: `whsec_${'B'.repeat(43)}=` }, ['secret: unknown member']],
      ['a group that is a string', { user: `${EVENTS}u` }, ['user: must be an object']],
      ['an event URL that is a number', { transaction: { created: 5 } }, ['transaction.created: must be a string']],
      ['an array body', [{ url: HOOK }], ['body: must be a JSON object']],
    ])('answers 400 bad request for %s and changes nothing', async (_, body, message) => {
      const { m } = await withWebhook();
      const res = await patch(m, 'w', body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'bad request', message });
      expect((await api.read(m, 'w')).body).toEqual(FULL);
    });

    it('answers 404 not found for an unknown webhook', async () => {
      const { m } = await withWebhook();
      const res = await patch(m, 'other', { url: HOOK });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
      expect((await api.list(m)).body).toEqual({ w: FULL });
      await api.expectSourceInvariant(m);
    });

    it('answers 404 not found for an organization with no webhook, and creates no source row', async () => {
      const m = await owner();
      const res = await patch(m, 'w', { url: HOOK });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
      expect(await api.sourceRows(m)).toBe(0);
    });

    it('answers 400 invalid name for a path name off the pattern', async () => {
      const { m } = await withWebhook();
      const res = await patch(m, 'W', { url: HOOK });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID_NAME);
    });

    it('answers a path name off the pattern 400 invalid name before a URL that breaks the rules', async () => {
      const { m } = await withWebhook();
      expect((await patch(m, 'W', { url: 'http://hooks.example.com/' })).body).toEqual(INVALID_NAME);
    });
  });

  describe('PATCH /api/webhook/{name}, checks before DNS', () => {
    it('answers 404 not found for an unknown webhook before resolving any URL', async () => {
      const m = await owner();
      await api.create(m, 'w', { url: HOOK });
      const res = await api.patch(m, 'missing', { url: 'https://patch-unasked.example.com/' });
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
      expect(t.dns.questions.filter((q) => q.endsWith(' patch-unasked.example.com'))).toEqual([]);
    });

    it('answers 400 invalid url for a host that does not resolve, and changes nothing', async () => {
      const m = await owner();
      await api.create(m, 'w', { url: HOOK, card: { updated: `${EVENTS}c` } });
      const res = await api.patch(m, 'w', { card: { updated: 'https://nowhere.example.com/' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid url', message: ['card.updated: does not resolve'] });
      expect((await api.read(m, 'w')).body).toEqual({ url: HOOK, card: { updated: `${EVENTS}c` } });
    });
  });

  describe('DELETE /api/webhook/{name}', () => {
    it('answers 200 {code: ok}, after which the webhook is not found', async () => {
      const m = await owner();
      await api.create(m, 'gone', { url: HOOK });
      const res = await api.remove(m, 'gone');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK);
      const read = await api.read(m, 'gone');
      expect(read.status).toBe(404);
      expect(read.body).toEqual(NOT_FOUND);
      await api.expectSourceInvariant(m);
    });

    it('answers 404 not found for a second delete', async () => {
      const m = await owner();
      await api.create(m, 'twice', { url: HOOK });
      expect((await api.remove(m, 'twice')).status).toBe(200);
      const res = await api.remove(m, 'twice');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
    });

    it('answers 404 not found for a name the organization never had', async () => {
      const m = await owner();
      await api.create(m, 'kept', { url: HOOK });
      const res = await api.remove(m, 'never');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
      expect((await api.list(m)).body).toEqual({ kept: { url: HOOK } });
    });

    it("answers 404 not found for another organization's webhook, and leaves it", async () => {
      const a = await owner();
      const b = await owner();
      await api.create(a, 'theirs', { url: HOOK });
      const res = await api.remove(b, 'theirs');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(NOT_FOUND);
      expect((await api.read(a, 'theirs')).body).toEqual({ url: HOOK });
      await api.expectSourceInvariant(a);
    });

    it('answers 400 invalid name for a name off the pattern', async () => {
      const m = await owner();
      const res = await api.remove(m, 'no_way');
      expect(res.status).toBe(400);
      expect(res.body).toEqual(INVALID_NAME);
    });

    it('keeps the source row when other webhooks remain', async () => {
      const m = await owner();
      await api.create(m, 'one', { url: HOOK });
      await api.create(m, 'two', { url: HOOK });
      expect((await api.remove(m, 'one')).status).toBe(200);
      expect(await api.sourceRows(m)).toBe(1);
      expect((await api.list(m)).body).toEqual({ two: { url: HOOK } });
      await api.expectSourceInvariant(m);
    });

    it('removes the source row with the last webhook', async () => {
      const m = await owner();
      await api.create(m, 'one', { url: HOOK });
      await api.create(m, 'two', { url: HOOK });
      await api.remove(m, 'one');
      expect((await api.remove(m, 'two')).status).toBe(200);
      expect(await api.sourceRows(m)).toBe(0);
      expect((await api.list(m)).body).toEqual({});
    });

    it('makes a new source row at the next create after the last delete', async () => {
      const m = await owner();
      await api.create(m, 'first', { url: HOOK });
      await api.remove(m, 'first');
      expect(await api.sourceRows(m)).toBe(0);
      const res = await api.create(m, 'again', { url: HOOK });
      expect(res.status).toBe(201);
      expect(await api.sourceRows(m)).toBe(1);
      expect((await api.list(m)).body).toEqual({ again: { url: HOOK } });
    });

    it("leaves another organization's source row when deleting the last webhook", async () => {
      const a = await owner();
      const b = await owner();
      await api.create(a, 'same', { url: HOOK });
      await api.create(b, 'same', { url: HOOK });
      expect((await api.remove(a, 'same')).status).toBe(200);
      expect(await api.sourceRows(a)).toBe(0);
      expect(await api.sourceRows(b)).toBe(1);
      expect((await api.read(b, 'same')).body).toEqual({ url: HOOK });
    });
  });
});

describeEachDatabase('webhooks CRUD at WEBHOOKS_PER_ORG_MAX', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: PUBLIC_ZONE, env: { WEBHOOKS_PER_ORG_MAX: '3' } });
  });
  afterAll(() => t?.close());
  const api = webhookClient(() => t);
  const LIMIT_REACHED = { code: 'limit reached', message: ['an organization has at most 3 webhooks'] };

  /** A member whose organization holds `a`, `b` and `c`: the cap. */
  const atCap = async () => {
    const m = await t.member('owner');
    for (const name of ['a', 'b', 'c']) expect((await api.create(m, name, { url: HOOK })).status).toBe(201);
    return m;
  };

  it('answers 400 limit reached for one more webhook, and stores nothing', async () => {
    const m = await atCap();
    const res = await api.create(m, 'd', { url: HOOK });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(LIMIT_REACHED);
    expect(Object.keys((await api.list(m)).body)).toEqual(['a', 'b', 'c']);
    await api.expectSourceInvariant(m);
  });

  it('answers 400 limit reached before resolving any URL', async () => {
    const m = await atCap();
    const res = await api.create(m, 'd', { url: 'https://cap-unasked.example.com/' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(LIMIT_REACHED);
    expect(t.dns.questions.filter((q) => q.endsWith(' cap-unasked.example.com'))).toEqual([]);
  });

  it('makes room again once a webhook is deleted', async () => {
    const m = await atCap();
    expect((await api.remove(m, 'b')).status).toBe(200);
    const res = await api.create(m, 'd', { url: HOOK });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ name: 'd', url: HOOK, secret: expect.stringMatching(SECRET) });
    expect(Object.keys((await api.list(m)).body)).toEqual(['a', 'c', 'd']);
  });

  it('counts the cap per organization', async () => {
    await atCap();
    const other = await t.member('owner');
    const res = await api.create(other, 'a', { url: HOOK });
    expect(res.status).toBe(201);
  });

  it('still lets an organization at the cap update its webhooks', async () => {
    const m = await atCap();
    const res = await api.patch(m, 'a', { url: EVENTS });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: 'a', url: EVENTS });
  });
});
