import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box';
import { describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';
import { EVENTS, HOOK, OTHER, PUBLIC_ZONE, SECRET, webhookClient, type Member } from '../support/webhook-client';

/*
 * A webhook's `events` (docs/api.md 10.13) and custom `headers` (10.15) through the webhook
 * operations: as sent on create, legacy create-or-update and PATCH, read back (the events as
 * sent, every header value masked), named in the audit trail, refused with 400 bad request,
 * and a header value never in an answer, an error, the audit trail, a log line or a column
 * other than its sealed one.
 */

const VALUE = 'k3y-0f-the-receiver';
const MASK = '********';

describeEachDatabase('webhook events and headers', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: PUBLIC_ZONE });
  });
  afterAll(() => t?.close());
  const api = webhookClient(() => t);
  const owner = () => t.member('owner');
  const audit = async (m: Member) =>
    (await t.http().get('/api/audit').set('Cookie', m.cookie)).body.data as { action: string; fields: string[] }[];
  const badRequest = (message: string) => ({ code: 'bad request', message: [message] });

  /** Every stored cell of the webhook's row and of the organization's audit entries, as text. */
  async function storedText(m: Member): Promise<string> {
    const webhooks = await t.dataSource.query(
      'SELECT w.* FROM webhooks w JOIN webhook_sources ws ON ws.id = w.source_id WHERE ws.organization_id = ?',
      [m.organizationId],
    );
    const entries = await t.dataSource.query('SELECT * FROM audit_entries WHERE organization_id = ?', [m.organizationId]);
    return JSON.stringify([webhooks, entries]);
  }

  describe('events', () => {
    it('reads back as sent, in its order, after create, and is absent when not set', async () => {
      const m = await owner();
      const events = ['user.updated', 'card.*', 'transaction.created'];
      const created = await api.create(m, 'subscribed', { url: HOOK, events });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ name: 'subscribed', url: HOOK, events, secret: expect.stringMatching(SECRET) });
      expect((await api.read(m, 'subscribed')).body).toEqual({ url: HOOK, events });
      expect((await api.list(m)).body).toEqual({ subscribed: { url: HOOK, events } });
      expect((await api.create(m, 'everything', { url: HOOK })).body).not.toHaveProperty('events');
    });

    it('changes with a PATCH, is cleared by null, and the audit names events only when it changed', async () => {
      const m = await owner();
      await api.create(m, 'patched', { url: HOOK, events: ['card.*'] });
      expect((await audit(m))[0]).toMatchObject({ action: 'webhook.created', fields: ['url', 'events'] });

      const changed = await api.patch(m, 'patched', { events: ['transaction.*', 'user.updated'] });
      expect(changed.body).toEqual({ name: 'patched', url: HOOK, events: ['transaction.*', 'user.updated'] });
      expect((await audit(m))[0]).toMatchObject({ action: 'webhook.updated', fields: ['events'] });

      await api.patch(m, 'patched', { events: ['transaction.*', 'user.updated'] });
      expect((await audit(m))[0]).toMatchObject({ action: 'webhook.updated', fields: [] });

      const cleared = await api.patch(m, 'patched', { events: null });
      expect(cleared.body).toEqual({ name: 'patched', url: HOOK });
      expect((await audit(m))[0]).toMatchObject({ fields: ['events'] });
    });

    it('is set by the legacy create-or-update when given, and kept when not (as its rate limit)', async () => {
      const m = await owner();
      expect((await api.upsert(m, { name: 'legacy', url: HOOK, events: ['card.updated'] })).body).toMatchObject({
        events: ['card.updated'],
      });
      expect((await api.upsert(m, { name: 'legacy', url: `${HOOK}moved` })).body).toMatchObject({
        url: `${HOOK}moved`,
        events: ['card.updated'],
      });
      expect((await api.upsert(m, { name: 'legacy', url: HOOK, events: ['user.*'] })).body).toMatchObject({ events: ['user.*'] });
      expect((await audit(m))[0]).toMatchObject({ action: 'webhook.updated', fields: ['url', 'events'] });
    });

    it.each([
      ['an empty list', [], 'events: must list at least one event type'],
      ['a duplicate', ['card.*', 'card.*'], 'events: card.* is listed twice'],
      [
        'an unknown type',
        ['card.created'],
        'events: item 1 is not one of transaction.created, transaction.updated, transaction.completed, card.updated, user.updated, transaction.*, card.*, user.*',
      ],
      [
        'webhook.test',
        ['webhook.test'],
        'events: item 1 is not one of transaction.created, transaction.updated, transaction.completed, card.updated, user.updated, transaction.*, card.*, user.*',
      ],
    ])('refuses %s with 400 bad request on create, legacy and PATCH, storing nothing', async (_, events, message) => {
      const m = await owner();
      expect(await api.create(m, 'refused', { url: HOOK, events })).toMatchObject({ status: 400, body: badRequest(message) });
      expect(await api.upsert(m, { name: 'refused', url: HOOK, events })).toMatchObject({ status: 400, body: badRequest(message) });
      await api.create(m, 'kept', { url: HOOK, events: ['user.*'] });
      expect(await api.patch(m, 'kept', { events })).toMatchObject({ status: 400, body: badRequest(message) });
      expect((await api.list(m)).body).toEqual({ kept: { url: HOOK, events: ['user.*'] } });
    });
  });

  describe('headers', () => {
    it('reads back every name as sent with its value masked, and keeps the value out of answers, audit and columns', async () => {
      const m = await owner();
      const created = await api.create(m, 'headed', { url: HOOK, headers: { 'X-Api-Key': VALUE, authorization: `Bearer ${VALUE}` } });
      expect(created.status).toBe(201);
      const masked = { 'X-Api-Key': MASK, authorization: MASK };
      expect(created.body).toEqual({ name: 'headed', url: HOOK, headers: masked, secret: expect.stringMatching(SECRET) });
      expect((await api.read(m, 'headed')).body).toEqual({ url: HOOK, headers: masked });
      expect((await api.list(m)).body).toEqual({ headed: { url: HOOK, headers: masked } });
      expect((await audit(m))[0]).toMatchObject({ action: 'webhook.created', fields: ['url', 'headers'] });
      expect(await storedText(m)).not.toContain(VALUE);
      expect(t.logs.join('')).not.toContain(VALUE);
    });

    it('seals the headers to their webhook: they open with its binding and with no other', async () => {
      const m = await owner();
      await api.create(m, 'sealed', { url: HOOK, headers: { 'X-Api-Key': VALUE } });
      const [row] = await t.dataSource.query(
        'SELECT w.headers AS c, w.headers_key_id AS k FROM webhooks w JOIN webhook_sources ws ON ws.id = w.source_id WHERE ws.organization_id = ? AND w.name = ?',
        [m.organizationId, 'sealed'],
      );
      const box = t.app.get(SecretBox);
      const sealed = { ciphertext: row.c, keyId: row.k };
      expect(JSON.parse(box.open(sealed, { table: 'webhooks', organizationId: m.organizationId, row: 'sealed#headers' }))).toEqual([
        ['X-Api-Key', VALUE],
      ]);
      expect(() => box.open(sealed, { table: 'webhooks', organizationId: m.organizationId, row: 'sealed' })).toThrow();
    });

    it('merges a PATCH case-insensitively: a member replaces or removes one, new ones are added, null removes all', async () => {
      const m = await owner();
      await api.create(m, 'merged', { url: HOOK, headers: { 'X-One': '1', 'X-Two': '2' } });
      const patched = await api.patch(m, 'merged', { headers: { 'x-one': null, 'X-TWO': VALUE, 'X-Three': '3' } });
      expect(patched.status).toBe(200);
      expect(patched.body).toEqual({ name: 'merged', url: HOOK, headers: { 'X-TWO': MASK, 'X-Three': MASK } });
      expect((await audit(m))[0]).toMatchObject({ action: 'webhook.updated', fields: ['headers'] });

      await api.patch(m, 'merged', { headers: { 'X-Three': '3' } });
      expect((await audit(m))[0]).toMatchObject({ action: 'webhook.updated', fields: [] });

      const cleared = await api.patch(m, 'merged', { headers: null });
      expect(cleared.body).toEqual({ name: 'merged', url: HOOK });
      expect((await audit(m))[0]).toMatchObject({ fields: ['headers'] });
      expect(await storedText(m)).not.toContain(VALUE);
    });

    it('is replaced whole by the legacy create-or-update when given, and kept when not', async () => {
      const m = await owner();
      await api.upsert(m, { name: 'legacy', url: HOOK, headers: { 'X-One': '1', 'X-Two': '2' } });
      expect((await api.upsert(m, { name: 'legacy', url: HOOK })).body).toMatchObject({ headers: { 'X-One': MASK, 'X-Two': MASK } });
      expect((await api.upsert(m, { name: 'legacy', url: HOOK, headers: { 'X-Three': '3' } })).body).toMatchObject({
        headers: { 'X-Three': MASK },
      });
      expect((await api.upsert(m, { name: 'legacy', url: HOOK, headers: {} })).body).not.toHaveProperty('headers');
    });

    it('refuses a PATCH that moves the url to a new host without the headers given again, and changes nothing (10.15)', async () => {
      const m = await owner();
      await api.create(m, 'moved', { url: HOOK, transaction: { created: EVENTS }, headers: { 'X-Api-Key': VALUE } });
      const rule = 'must be given again, or null, with a URL on an origin the webhook has not used (https://other.example.com)';
      expect(await api.patch(m, 'moved', { url: OTHER })).toMatchObject({ status: 400, body: badRequest(`headers: ${rule}`) });
      expect(await api.upsert(m, { name: 'moved', url: OTHER })).toMatchObject({ status: 400, body: badRequest(`headers: ${rule}`) });
      expect((await api.read(m, 'moved')).body).toMatchObject({ url: HOOK, headers: { 'X-Api-Key': MASK } });
    });

    it('takes a move to an origin the webhook already used, and one with the headers given again, the audit naming both', async () => {
      const m = await owner();
      await api.create(m, 'moving', { url: HOOK, transaction: { created: EVENTS }, headers: { 'X-Api-Key': VALUE } });
      expect((await api.patch(m, 'moving', { url: EVENTS })).status).toBe(200);
      const moved = await api.patch(m, 'moving', { url: OTHER, headers: { 'x-api-key': VALUE } });
      expect(moved).toMatchObject({ status: 200, body: { url: OTHER, headers: { 'x-api-key': MASK } } });
      expect((await audit(m))[0]).toMatchObject({ action: 'webhook.updated', fields: ['url', 'headers'] });
    });

    it('refuses a patch that takes the webhook past 20 headers, naming the rule and storing nothing', async () => {
      const m = await owner();
      const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`X-H${i}`, 'v']));
      expect((await api.create(m, 'full', { url: HOOK, headers: twenty })).status).toBe(201);
      expect(await api.patch(m, 'full', { headers: { 'X-More': VALUE } })).toMatchObject({
        status: 400,
        body: badRequest('headers: at most 20 headers'),
      });
      expect(Object.keys((await api.read(m, 'full')).body.headers)).toHaveLength(20);
    });

    it('refuses a patch that takes the values past 8192 characters together', async () => {
      const m = await owner();
      const full = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`X-H${i}`, 'v'.repeat(1024)]));
      expect((await api.create(m, 'big', { url: HOOK, headers: full })).status).toBe(201);
      expect(await api.patch(m, 'big', { headers: { 'X-More': 'v' } })).toMatchObject({
        status: 400,
        body: badRequest('headers: the values must be at most 8192 characters together'),
      });
      expect((await api.patch(m, 'big', { headers: { 'X-H0': null, 'X-More': 'v' } })).status).toBe(200);
    });

    const REFUSED = [
      'host',
      'Content-Length',
      'content-type',
      'Transfer-Encoding',
      'connection',
      'keep-alive',
      'TE',
      'trailer',
      'upgrade',
      'expect',
      'User-Agent',
      'Proxy-Authorization',
      'proxy-connection',
      'webhook-id',
      'Webhook-Signature',
      'webhook-timestamp',
    ];

    it.each(REFUSED)('refuses the header %s with 400 bad request on create, legacy and PATCH, quoting no value', async (name) => {
      const m = await owner();
      const message = `headers: ${name}: not allowed (the service or the connection sets it)`;
      const headers = { [name]: VALUE };
      for (const res of [
        await api.create(m, 'refused', { url: HOOK, headers }),
        await api.upsert(m, { name: 'refused', url: HOOK, headers }),
      ]) {
        expect(res.status).toBe(400);
        expect(res.body).toEqual(badRequest(message));
      }
      await api.create(m, 'plain', { url: HOOK });
      const patched = await api.patch(m, 'plain', { headers });
      expect(patched.body).toEqual(badRequest(message));
      expect(JSON.stringify(patched.body)).not.toContain(VALUE);
      expect((await api.list(m)).body).toEqual({ plain: { url: HOOK } });
    });

    it.each([
      [
        'two names differing only in case',
        { 'X-Key': 'a', 'x-key': 'b' },
        'headers: x-key: given twice (names are compared case-insensitively)',
      ],
      ['a name that is not a token', { 'X Key': VALUE }, 'headers: member 1: the name is not an HTTP token of 1 to 64 characters'],
      [
        'a value with a line break',
        { 'X-Key': `${VALUE}\r\nX-Injected: 1` },
        'headers: X-Key: value must be 1 to 1024 visible ASCII characters or spaces, with no space first or last',
      ],
      [
        'an empty value',
        { 'X-Key': '' },
        'headers: X-Key: value must be 1 to 1024 visible ASCII characters or spaces, with no space first or last',
      ],
      ['21 headers', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, VALUE])), 'headers: at most 20 headers'],
    ])('refuses %s with 400 bad request, quoting no value', async (_, headers, message) => {
      const m = await owner();
      const res = await api.create(m, 'refused', { url: HOOK, headers });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(badRequest(message));
      expect(JSON.stringify(res.body)).not.toContain(VALUE);
    });
  });
});
