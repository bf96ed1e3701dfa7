import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * docs/api.md 4 and 5: every webhook operation acts in the caller's organization only. Organization
 * B never sees, changes or deletes A's webhooks, whatever name it uses.
 */

const HOST = 'hooks.example.com';
const A_URL = `https://${HOST}/org-a`;
const B_URL = `https://${HOST}/org-b`;

describeEachDatabase('organization isolation', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: { [HOST]: { A: ['93.184.215.14'] } } });
  });
  afterAll(() => t.close());

  /** Two fresh organizations with an owner each; A has webhook `shared` (with its secret). */
  async function twoOrganizations() {
    const a = await t.member('owner');
    const b = await t.member('owner');
    const created = await t
      .http()
      .post('/api/webhook/shared')
      .set('Cookie', a.cookie)
      .send({ url: A_URL, card: { updated: `${A_URL}/card` } });
    expect(created.status).toBe(201);
    return { a, b, secretOfA: created.body.secret as string };
  }

  /** A's webhook `shared` as A reads it: still there and unchanged. */
  async function expectAUntouched(cookieOfA: string): Promise<void> {
    const res = await t.http().get('/api/webhook/shared').set('Cookie', cookieOfA);
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { url: A_URL, card: { updated: `${A_URL}/card` } } });
  }

  const notFound = { status: 404, body: { code: 'not found' } };

  describe('reading', () => {
    it("does not let B read A's webhook by name", async () => {
      const { b } = await twoOrganizations();
      const res = await t.http().get('/api/webhook/shared').set('Cookie', b.cookie);
      expect({ status: res.status, body: res.body }).toEqual(notFound);
    });

    it("does not show A's webhooks in B's list", async () => {
      const { b } = await twoOrganizations();
      const res = await t.http().get('/api/webhook').set('Cookie', b.cookie);
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
    });

    it('shows B only its own webhooks when both have some', async () => {
      const { a, b } = await twoOrganizations();
      expect((await t.http().post('/api/webhook/only-b').set('Cookie', b.cookie).send({ url: B_URL })).status).toBe(201);
      expect((await t.http().get('/api/webhook').set('Cookie', b.cookie)).body).toEqual({ 'only-b': { url: B_URL } });
      expect((await t.http().get('/api/webhook').set('Cookie', a.cookie)).body).toEqual({
        shared: { url: A_URL, card: { updated: `${A_URL}/card` } },
      });
    });
  });

  describe('changing', () => {
    it("answers B's PATCH of A's webhook 404 and leaves it unchanged", async () => {
      const { a, b } = await twoOrganizations();
      const res = await t.http().patch('/api/webhook/shared').set('Cookie', b.cookie).send({ url: B_URL, card: null });
      expect({ status: res.status, body: res.body }).toEqual(notFound);
      await expectAUntouched(a.cookie);
    });

    it("answers B's DELETE of A's webhook 404 and keeps it", async () => {
      const { a, b } = await twoOrganizations();
      const res = await t.http().delete('/api/webhook/shared').set('Cookie', b.cookie);
      expect({ status: res.status, body: res.body }).toEqual(notFound);
      await expectAUntouched(a.cookie);
    });

    it("answers B's legacy DELETE of A's name 200 ok without deleting A's webhook", async () => {
      const { a, b } = await twoOrganizations();
      const res = await t.http().delete('/api/webhook').set('Cookie', b.cookie).send({ name: 'shared' });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { code: 'ok' } });
      await expectAUntouched(a.cookie);
    });

    it("keeps A's source record when B's legacy DELETE names A's only webhook", async () => {
      const { a, b } = await twoOrganizations();
      await t.http().delete('/api/webhook').set('Cookie', b.cookie).send({ name: 'shared' });
      const rows: unknown[] = await t.dataSource.query('SELECT 1 FROM webhook_sources WHERE organization_id = ?', [a.organizationId]);
      expect(rows).toHaveLength(1);
    });
  });

  describe('names', () => {
    it('lets both organizations create a webhook of the same name', async () => {
      const { b } = await twoOrganizations();
      const res = await t.http().post('/api/webhook/shared').set('Cookie', b.cookie).send({ url: B_URL });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ name: 'shared', url: B_URL });
    });

    it("gives B's webhook of the same name its own secret and its own URLs", async () => {
      const { a, b, secretOfA } = await twoOrganizations();
      const res = await t.http().post('/api/webhook/shared').set('Cookie', b.cookie).send({ url: B_URL });
      expect(res.body.secret).toMatch(/^whsec_/);
      expect(res.body.secret).not.toBe(secretOfA);
      expect((await t.http().get('/api/webhook/shared').set('Cookie', b.cookie)).body).toEqual({ url: B_URL });
      await expectAUntouched(a.cookie);
    });

    it("lets B delete its own webhook of A's name without touching A's", async () => {
      const { a, b } = await twoOrganizations();
      expect((await t.http().post('/api/webhook/shared').set('Cookie', b.cookie).send({ url: B_URL })).status).toBe(201);
      expect((await t.http().delete('/api/webhook/shared').set('Cookie', b.cookie)).status).toBe(200);
      expect((await t.http().get('/api/webhook/shared').set('Cookie', b.cookie)).status).toBe(404);
      await expectAUntouched(a.cookie);
    });

    it("lets B patch its own webhook of A's name without touching A's", async () => {
      const { a, b } = await twoOrganizations();
      expect((await t.http().post('/api/webhook/shared').set('Cookie', b.cookie).send({ url: B_URL })).status).toBe(201);
      const res = await t
        .http()
        .patch('/api/webhook/shared')
        .set('Cookie', b.cookie)
        .send({ url: `${B_URL}/v2`, card: null });
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { name: 'shared', url: `${B_URL}/v2` } });
      await expectAUntouched(a.cookie);
    });
  });

  describe('legacy create-or-update', () => {
    it("creates B's own webhook when B uses A's name, with a different secret", async () => {
      const { b, secretOfA } = await twoOrganizations();
      const res = await t.http().post('/api/webhook').set('Cookie', b.cookie).send({ name: 'shared', url: B_URL });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ url: B_URL, secret: expect.stringMatching(/^whsec_/) });
      expect(res.body.secret).not.toBe(secretOfA);
      expect((await t.http().get('/api/webhook').set('Cookie', b.cookie)).body).toEqual({ shared: { url: B_URL } });
    });

    it("leaves A's webhook and secret untouched when B uses A's name", async () => {
      const { a, b, secretOfA } = await twoOrganizations();
      await t.http().post('/api/webhook').set('Cookie', b.cookie).send({ name: 'shared', url: B_URL });
      await expectAUntouched(a.cookie);
      // A's own legacy update returns A's kept secret: proof that B's call did not rotate it.
      const again = await t.http().post('/api/webhook').set('Cookie', a.cookie).send({ name: 'shared', url: A_URL });
      expect({ status: again.status, secret: again.body.secret }).toEqual({ status: 200, secret: secretOfA });
    });
  });

  describe('members of several organizations', () => {
    it('acts only in the active organization of the session', async () => {
      const { a, b } = await twoOrganizations();
      // The owner of B is also an owner of A, but this session is active in B.
      await t.identity.setMembership(a.organizationId, b.userId, 'owner');
      const res = await t.http().get('/api/webhook/shared').set('Cookie', b.cookie);
      expect({ status: res.status, body: res.body }).toEqual(notFound);
    });
  });
});
