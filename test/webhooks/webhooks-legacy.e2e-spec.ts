import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';
import { EVENTS, HOOK, NAME_RULE, PUBLIC_ZONE, SECRET, webhookClient } from '../support/webhook-client';

/*
 * The legacy webhook operations of docs/api.md 5.3: `POST /api/webhook` (create or replace, answering
 * 200 and the kept secret) and `DELETE /api/webhook` (by body name, 200 even when absent), with
 * the source-row invariant of docs/api.md 5 checked after every write.
 */

const OK = { code: 'ok' };

describeEachDatabase('legacy webhook operations', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: PUBLIC_ZONE });
  });
  afterAll(() => t?.close());
  const api = webhookClient(() => t);
  const owner = () => t.member('owner');

  describe('POST /api/webhook', () => {
    it('creates an unknown name: 200 with exactly the URLs and the secret', async () => {
      const m = await owner();
      const body = { name: 'legacy', url: `${HOOK}in`, transaction: { completed: `${EVENTS}done` } };
      const res = await api.upsert(m, body);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: `${HOOK}in`, transaction: { completed: `${EVENTS}done` }, secret: expect.stringMatching(SECRET) });
      expect((await api.list(m)).body).toEqual({ legacy: { url: `${HOOK}in`, transaction: { completed: `${EVENTS}done` } } });
      await api.expectSourceInvariant(m);
    });

    it('stores and answers the WHATWG-normalized href', async () => {
      const m = await owner();
      const res = await api.upsert(m, { name: 'normalized', url: 'HTTPS://Hooks.Example.com:443/a/../b' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: 'https://hooks.example.com/b', secret: expect.stringMatching(SECRET) });
      expect((await api.read(m, 'normalized')).body).toEqual({ url: 'https://hooks.example.com/b' });
    });

    it('stores nothing for a group given as {}', async () => {
      const m = await owner();
      const res = await api.upsert(m, { name: 'empty-group', url: HOOK, card: {} });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: HOOK, secret: expect.stringMatching(SECRET) });
      expect((await api.read(m, 'empty-group')).body).toEqual({ url: HOOK });
    });

    it('replaces every URL of a known name, clearing the groups absent from the body', async () => {
      const m = await owner();
      await api.upsert(m, {
        name: 'replaced',
        url: `${HOOK}old`,
        transaction: { created: `${EVENTS}tc`, updated: `${EVENTS}tu` },
        card: { updated: `${EVENTS}card` },
      });
      const expected = { url: `${HOOK}new`, transaction: { completed: `${EVENTS}done` }, user: { updated: `${EVENTS}u` } };
      const res = await api.upsert(m, { name: 'replaced', ...expected });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...expected, secret: expect.stringMatching(SECRET) });
      expect((await api.list(m)).body).toEqual({ replaced: expected });
      await api.expectSourceInvariant(m);
    });

    it('keeps and answers the same secret when replacing', async () => {
      const m = await owner();
      const first = await api.upsert(m, { name: 'kept', url: HOOK, card: { updated: `${EVENTS}c` } });
      const second = await api.upsert(m, { name: 'kept', url: EVENTS });
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(first.body.secret).toMatch(SECRET);
      expect(second.body.secret).toBe(first.body.secret);
    });

    it('answers the secret of a webhook made by POST /api/webhook/{name} when replacing it', async () => {
      const m = await owner();
      const created = await api.create(m, 'modern', { url: HOOK });
      expect(created.status).toBe(201);
      const res = await api.upsert(m, { name: 'modern', url: EVENTS });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: EVENTS, secret: created.body.secret });
    });

    it('gives a different secret to each new name', async () => {
      const m = await owner();
      const a = await api.upsert(m, { name: 'a', url: HOOK });
      const b = await api.upsert(m, { name: 'b', url: HOOK });
      expect(a.body.secret).toMatch(SECRET);
      expect(b.body.secret).toMatch(SECRET);
      expect(a.body.secret).not.toBe(b.body.secret);
    });

    it("leaves another organization's webhook of the same name alone", async () => {
      const a = await owner();
      const b = await owner();
      const theirs = await api.upsert(a, { name: 'same', url: `${HOOK}a` });
      const mine = await api.upsert(b, { name: 'same', url: `${HOOK}b` });
      expect([theirs.status, mine.status]).toEqual([200, 200]);
      expect(mine.body.secret).not.toBe(theirs.body.secret);
      expect((await api.read(a, 'same')).body).toEqual({ url: `${HOOK}a` });
      await api.expectSourceInvariant(a);
      await api.expectSourceInvariant(b);
    });

    it.each<[string, unknown, string[]]>([
      ['a missing name', { url: HOOK }, ['name: is required']],
      ['a null name', { name: null, url: HOOK }, ['name: must match ^[a-z0-9-]{1,64}$']],
      ['a name off the pattern', { name: 'Legacy_Hook', url: HOOK }, [NAME_RULE]],
      ['a name of 65 characters', { name: 'a'.repeat(65), url: HOOK }, [NAME_RULE]],
      ['a name that is not a string', { name: 12, url: HOOK }, [NAME_RULE]],
      ['an empty name', { name: '', url: HOOK }, [NAME_RULE]],
    ])('answers 400 invalid name for %s', async (_, body, message) => {
      const m = await owner();
      const res = await api.upsert(m, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid name', message });
      await api.expectSourceInvariant(m);
    });

    it('answers 400 invalid name for a missing name even when the URL is missing too', async () => {
      const m = await owner();
      const res = await api.upsert(m, { card: 'x' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid name', message: ['name: is required'] });
    });

    it.each<[string, unknown, string[]]>([
      ['a null url', { name: 'n', url: null }, ['url: must be a string']],
      ['a missing url', { name: 'n' }, ['url: is required']],
      ['a url that is not a string', { name: 'n', url: ['https://hooks.example.com/'] }, ['url: must be a string']],
      ['a null group', { name: 'n', url: HOOK, transaction: null }, ['transaction: must be an object']],
      ['a null event URL', { name: 'n', url: HOOK, user: { updated: null } }, ['user.updated: must be a string']],
      ['an event URL that is a number', { name: 'n', url: HOOK, card: { updated: 1 } }, ['card.updated: must be a string']],
      ['an unknown member', { name: 'n', url: HOOK, active: true }, ['active: unknown member']],
      ['an unknown group member', { name: 'n', url: HOOK, user: { created: HOOK } }, ['user.created: unknown member']],
      ['a secret', { name: 'n', url: HOOK, secret: `whsec_${'C'.repeat(43)}=` }, ['secret: unknown member']],
      ['an array body', [{ name: 'n', url: HOOK }], ['body: must be a JSON object']],
    ])('answers 400 bad request for %s and stores nothing', async (_, body, message) => {
      const m = await owner();
      const res = await api.upsert(m, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'bad request', message });
      expect((await api.list(m)).body).toEqual({});
      await api.expectSourceInvariant(m);
    });

    it('answers 400 invalid url for a host that does not resolve, and makes no source row', async () => {
      const m = await owner();
      const res = await api.upsert(m, { name: 'nowhere', url: 'https://nowhere.example.com/' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid url', message: ['url: does not resolve'] });
      expect(await api.sourceRows(m)).toBe(0);
    });

    it('answers 400 bad request for a null in a replacing body and keeps the stored URLs', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'n', url: HOOK, card: { updated: `${EVENTS}c` } });
      const res = await api.upsert(m, { name: 'n', url: HOOK, card: { updated: null } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'bad request', message: ['card.updated: must be a string'] });
      expect((await api.read(m, 'n')).body).toEqual({ url: HOOK, card: { updated: `${EVENTS}c` } });
    });
  });

  describe('DELETE /api/webhook', () => {
    it('answers 200 {code: ok} and deletes the named webhook', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'gone', url: HOOK });
      await api.upsert(m, { name: 'stays', url: HOOK });
      const res = await api.removeByBody(m, { name: 'gone' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK);
      expect((await api.read(m, 'gone')).status).toBe(404);
      expect((await api.list(m)).body).toEqual({ stays: { url: HOOK } });
      await api.expectSourceInvariant(m);
    });

    it('answers 200 {code: ok} for a name the organization does not have', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'other', url: HOOK });
      const res = await api.removeByBody(m, { name: 'absent' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK);
      expect((await api.list(m)).body).toEqual({ other: { url: HOOK } });
      await api.expectSourceInvariant(m);
    });

    it('answers 200 {code: ok} for an organization with no webhook, without making a source row', async () => {
      const m = await owner();
      const res = await api.removeByBody(m, { name: 'absent' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK);
      expect(await api.sourceRows(m)).toBe(0);
    });

    it('answers 200 {code: ok} again when the delete is retried', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'retried', url: HOOK });
      expect((await api.removeByBody(m, { name: 'retried' })).status).toBe(200);
      const res = await api.removeByBody(m, { name: 'retried' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK);
    });

    it('removes the source row with the last webhook', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'last', url: HOOK });
      expect(await api.sourceRows(m)).toBe(1);
      expect((await api.removeByBody(m, { name: 'last' })).status).toBe(200);
      expect(await api.sourceRows(m)).toBe(0);
      expect((await api.list(m)).body).toEqual({});
    });

    it('keeps the source row when other webhooks remain', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'one', url: HOOK });
      await api.upsert(m, { name: 'two', url: HOOK });
      expect((await api.removeByBody(m, { name: 'one' })).status).toBe(200);
      expect(await api.sourceRows(m)).toBe(1);
    });

    it('makes a new source row at the next create after the last delete', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'first', url: HOOK });
      await api.removeByBody(m, { name: 'first' });
      const res = await api.upsert(m, { name: 'again', url: HOOK });
      expect(res.status).toBe(200);
      expect(await api.sourceRows(m)).toBe(1);
      expect((await api.list(m)).body).toEqual({ again: { url: HOOK } });
    });

    it("leaves another organization's webhook of the same name alone", async () => {
      const a = await owner();
      const b = await owner();
      await api.upsert(a, { name: 'same', url: HOOK });
      const res = await api.removeByBody(b, { name: 'same' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(OK);
      expect((await api.read(a, 'same')).body).toEqual({ url: HOOK });
      await api.expectSourceInvariant(a);
    });

    it.each<[string, unknown, string[]]>([
      ['a missing name', {}, ['name: is required']],
      ['a null name', { name: null }, ['name: must match ^[a-z0-9-]{1,64}$']],
      ['a name off the pattern', { name: 'Gone!' }, [NAME_RULE]],
      ['a name that is not a string', { name: ['gone'] }, [NAME_RULE]],
    ])('answers 400 invalid name for %s and deletes nothing', async (_, body, message) => {
      const m = await owner();
      await api.upsert(m, { name: 'kept', url: HOOK });
      const res = await api.removeByBody(m, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid name', message });
      expect((await api.list(m)).body).toEqual({ kept: { url: HOOK } });
      await api.expectSourceInvariant(m);
    });

    it('answers 400 invalid name for a request with no body at all', async () => {
      const m = await owner();
      const res = await t.http().delete('/api/webhook').set('Cookie', m.cookie);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'invalid name', message: ['name: is required'] });
    });

    it('answers 400 bad request for an unknown member beside the name', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'kept', url: HOOK });
      const res = await api.removeByBody(m, { name: 'kept', force: true });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'bad request', message: ['force: unknown member'] });
      expect((await api.read(m, 'kept')).status).toBe(200);
    });
  });
});

describeEachDatabase('legacy POST /api/webhook at WEBHOOKS_PER_ORG_MAX', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: PUBLIC_ZONE, env: { WEBHOOKS_PER_ORG_MAX: '3' } });
  });
  afterAll(() => t?.close());
  const api = webhookClient(() => t);

  /** A member whose organization holds `a`, `b` and `c`: the cap. */
  const atCap = async () => {
    const m = await t.member('owner');
    const secrets: Record<string, string> = {};
    for (const name of ['a', 'b', 'c']) {
      const res = await api.upsert(m, { name, url: HOOK });
      expect(res.status).toBe(200);
      secrets[name] = res.body.secret;
    }
    return { m, secrets };
  };

  it('answers 400 limit reached for a new name, and stores nothing', async () => {
    const { m } = await atCap();
    const res = await api.upsert(m, { name: 'd', url: HOOK });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'limit reached', message: ['an organization has at most 3 webhooks'] });
    expect(Object.keys((await api.list(m)).body)).toEqual(['a', 'b', 'c']);
    await api.expectSourceInvariant(m);
  });

  it('answers 400 limit reached for a new name before resolving any URL', async () => {
    const { m } = await atCap();
    const res = await api.upsert(m, { name: 'd', url: 'https://cap-unasked.example.com/' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 'limit reached', message: ['an organization has at most 3 webhooks'] });
    expect(t.dns.questions.filter((q) => q.endsWith(' cap-unasked.example.com'))).toEqual([]);
  });

  it('still replaces an existing name at the cap', async () => {
    const { m, secrets } = await atCap();
    const res = await api.upsert(m, { name: 'b', url: EVENTS, user: { updated: `${EVENTS}u` } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ url: EVENTS, user: { updated: `${EVENTS}u` }, secret: secrets.b });
    expect((await api.read(m, 'b')).body).toEqual({ url: EVENTS, user: { updated: `${EVENTS}u` } });
  });

  it('makes room again once a webhook is deleted by body name', async () => {
    const { m } = await atCap();
    expect((await api.removeByBody(m, { name: 'a' })).status).toBe(200);
    const res = await api.upsert(m, { name: 'd', url: HOOK });
    expect(res.status).toBe(200);
    expect(Object.keys((await api.list(m)).body)).toEqual(['b', 'c', 'd']);
  });
});
