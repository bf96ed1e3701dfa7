import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventIngest } from '../../src/delivery/events/event-ingest.service';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * The audit trail (docs/api.md 10.9): every change an organization's people make writes one
 * entry, in the transaction of the change, with the actor, the action and the names of the
 * members that changed; a failed action writes none; never a URL, secret or token; each
 * organization sees only its own.
 */

const HOST = 'hooks.example.com';
const url = (path: string) => `https://${HOST}/${path}`;

describeEachDatabase('audit trail', (kind: DatabaseKind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: { [HOST]: { A: ['93.184.215.14'] } }, env: { DELIVERY_CONCURRENCY: '0' } });
  });
  afterAll(() => t?.close());

  async function owner() {
    const member = await t.member('owner');
    const [{ email }] = await t.dataSource.query('SELECT email FROM users WHERE id = ?', [member.userId]);
    return { ...member, email: email as string };
  }

  const trail = async (cookie: string, query = '') => {
    const res = await t.http().get(`/api/audit${query}`).set('Cookie', cookie);
    expect(res.status).toBe(200);
    return res.body as {
      data: { action: string; webhook: string; fields: string[]; actor: { user: number; email: string } }[];
      next: string | null;
    };
  };
  const latest = async (cookie: string) => (await trail(cookie)).data[0];

  it('records a create with its actor and the members it set', async () => {
    const o = await owner();
    await t
      .http()
      .post('/api/webhook/audited')
      .set('Cookie', o.cookie)
      .send({ url: url('a'), transaction: { created: url('tc') } })
      .expect(201);
    const res = await trail(o.cookie);
    expect(res.data).toEqual([
      {
        id: expect.any(Number),
        at: expect.stringMatching(/Z$/),
        actor: { user: o.userId, email: o.email },
        action: 'webhook.created',
        webhook: 'audited',
        fields: ['url', 'transaction.created'],
      },
    ]);
  });

  it('records an update with exactly the members it changed, cleared ones included', async () => {
    const o = await owner();
    await t
      .http()
      .post('/api/webhook/audited')
      .set('Cookie', o.cookie)
      .send({ url: url('a'), transaction: { created: url('tc') } })
      .expect(201);
    await t
      .http()
      .patch('/api/webhook/audited')
      .set('Cookie', o.cookie)
      .send({ transaction: { created: null }, card: { updated: url('cu') } })
      .expect(200);
    expect(await latest(o.cookie)).toMatchObject({
      action: 'webhook.updated',
      webhook: 'audited',
      fields: ['transaction.created', 'card.updated'],
    });
  });

  it('names in an update only the members whose value changed: one sent with its stored value is not a change', async () => {
    const o = await owner();
    await t
      .http()
      .post('/api/webhook/same')
      .set('Cookie', o.cookie)
      .send({ url: url('a'), rateLimit: 5 })
      .expect(201);
    await t
      .http()
      .patch('/api/webhook/same')
      .set('Cookie', o.cookie)
      .send({ url: url('a'), rateLimit: 5, card: { updated: url('cu') } })
      .expect(200);
    expect(await latest(o.cookie)).toMatchObject({ action: 'webhook.updated', webhook: 'same', fields: ['card.updated'] });
    await t.http().patch('/api/webhook/same').set('Cookie', o.cookie).send({ rateLimit: null }).expect(200);
    expect(await latest(o.cookie)).toMatchObject({ action: 'webhook.updated', fields: ['rateLimit'] });
  });

  it('records the legacy create-or-update as a create, then as an update of what changed', async () => {
    const o = await owner();
    await t
      .http()
      .post('/api/webhook')
      .set('Cookie', o.cookie)
      .send({ name: 'legacy', url: url('a') })
      .expect(200);
    expect(await latest(o.cookie)).toMatchObject({ action: 'webhook.created', fields: ['url'] });
    await t
      .http()
      .post('/api/webhook')
      .set('Cookie', o.cookie)
      .send({ name: 'legacy', url: url('a'), user: { updated: url('uu') } })
      .expect(200);
    expect(await latest(o.cookie)).toMatchObject({ action: 'webhook.updated', fields: ['user.updated'] });
  });

  it('records deletes, the legacy one only when something was deleted', async () => {
    const o = await owner();
    await t
      .http()
      .post('/api/webhook/gone')
      .set('Cookie', o.cookie)
      .send({ url: url('a') })
      .expect(201);
    await t.http().delete('/api/webhook/gone').set('Cookie', o.cookie).expect(200);
    expect(await latest(o.cookie)).toMatchObject({ action: 'webhook.deleted', webhook: 'gone', fields: [] });
    await t.http().delete('/api/webhook').set('Cookie', o.cookie).send({ name: 'never-there' }).expect(200);
    expect((await trail(o.cookie)).data).toHaveLength(2);
  });

  it('records a rotation, a replay and a test', async () => {
    const o = await owner();
    await t
      .http()
      .post('/api/webhook/acted')
      .set('Cookie', o.cookie)
      .send({ url: url('a') })
      .expect(201);
    await t.http().post('/api/webhook/acted/secret/rotate').set('Cookie', o.cookie).send({ graceSeconds: 0 }).expect(200);
    await t.app.get(EventIngest).accept({ type: 'user.updated', organization: o.organizationId, data: {} });
    const [{ id }] = await t.dataSource.query('SELECT id FROM deliveries WHERE organization_id = ?', [o.organizationId]);
    await t.http().post(`/api/webhook/acted/deliveries/${id}/retry`).set('Cookie', o.cookie).expect(202);
    await t.http().post('/api/webhook/acted/test').set('Cookie', o.cookie).expect(202);
    expect((await trail(o.cookie)).data.map((e) => e.action)).toEqual([
      'webhook.tested',
      'delivery.retried',
      'webhook.secret_rotated',
      'webhook.created',
    ]);
  });

  it('writes nothing for a failed action', async () => {
    const o = await owner();
    await t
      .http()
      .post('/api/webhook/once')
      .set('Cookie', o.cookie)
      .send({ url: url('a') })
      .expect(201);
    await t
      .http()
      .post('/api/webhook/once')
      .set('Cookie', o.cookie)
      .send({ url: url('a') })
      .expect(409);
    await t
      .http()
      .patch('/api/webhook/missing')
      .set('Cookie', o.cookie)
      .send({ url: url('b') })
      .expect(404);
    await t.http().post('/api/webhook/bad').set('Cookie', o.cookie).send({ url: 'http://insecure.example.com' }).expect(400);
    await t.http().post('/api/webhook/missing/secret/rotate').set('Cookie', o.cookie).expect(404);
    expect((await trail(o.cookie)).data).toHaveLength(1);
  });

  it('never holds a URL, secret or token', async () => {
    const o = await owner();
    const created = await t
      .http()
      .post('/api/webhook/secretive')
      .set('Cookie', o.cookie)
      .send({ url: url('private-path') })
      .expect(201);
    const rotated = await t.http().post('/api/webhook/secretive/secret/rotate').set('Cookie', o.cookie).expect(200);
    const stored = JSON.stringify(await t.dataSource.query('SELECT * FROM audit_entries WHERE organization_id = ?', [o.organizationId]));
    for (const hidden of ['https://', 'private-path', created.body.secret, rotated.body.secret, o.token])
      expect(stored).not.toContain(hidden);
  });

  it('shows each organization only its own entries, and refuses a member', async () => {
    const [a, b] = [await owner(), await owner()];
    await t
      .http()
      .post('/api/webhook/mine')
      .set('Cookie', a.cookie)
      .send({ url: url('a') })
      .expect(201);
    expect((await trail(b.cookie)).data).toEqual([]);
    const member = await t.member('member', a.organizationId);
    const res = await t.http().get('/api/audit').set('Cookie', member.cookie);
    expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: { code: 'no permission' } });
  });

  it('pages newest first with a cursor, and refuses a cursor of another organization', async () => {
    const [a, b] = [await owner(), await owner()];
    for (const name of ['one', 'two', 'three'])
      await t
        .http()
        .post(`/api/webhook/${name}`)
        .set('Cookie', a.cookie)
        .send({ url: url(name) })
        .expect(201);
    const first = await trail(a.cookie, '?limit=2');
    expect(first.data.map((e) => e.webhook)).toEqual(['three', 'two']);
    const second = await trail(a.cookie, `?limit=2&cursor=${first.next}`);
    expect([second.data.map((e) => e.webhook), second.next]).toEqual([['one'], null]);
    expect((await t.http().get(`/api/audit?cursor=${first.next}`).set('Cookie', b.cookie)).status).toBe(400);
  });
});
