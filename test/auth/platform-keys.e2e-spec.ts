import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * Platform keys an operator manages (docs/api.md 3, 8, 10.1): a key restricted to some
 * organizations sends events for those only (403 forbidden otherwise, after the body's 400 and
 * before the organization's 404); an expired or revoked key is 401 like an unknown one; its last
 * use shows in the list; every change writes one operator audit entry, a failed one none.
 * The CLI's own cases (output, options, failures) are in cli.e2e-spec.ts.
 */

const UNAUTHORIZED = { status: 401, body: { code: 'unauthorized' } };
const FORBIDDEN = { status: 403, body: { code: 'forbidden' } };

describeEachDatabase('platform keys', (kind: DatabaseKind) => {
  let t: TestApp;
  let own: number;
  let other: number;
  beforeAll(async () => {
    t = await TestApp.start(kind, { env: { DELIVERY_CONCURRENCY: '0' } });
    [own, other] = [await t.identity.createOrganization('Own'), await t.identity.createOrganization('Other')];
  });
  afterAll(() => t?.close());

  const send = async (token: string, body: object) => {
    const res = await t.http().post('/api/events').set('Authorization', `Bearer ${token}`).send(body);
    return { status: res.status, body: res.body as unknown };
  };
  const event = (organization: unknown) => ({ type: 'user.updated', organization, data: {} });
  const listed = async (id: number) => (await t.identity.listPlatformKeys()).find((key) => key.id === id)!;

  it('lets a restricted key send for its organizations (202) and answers any other 403 forbidden', async () => {
    const { token } = await t.identity.createPlatformKey('own only', { organizations: [own] });
    expect(await send(token, event(own))).toEqual({ status: 202, body: { id: expect.stringMatching(/^evt_/), deliveries: 0 } });
    expect(await send(token, event(other))).toEqual(FORBIDDEN);
  });

  it('documents the 403 forbidden of POST /events in the OpenAPI document', async () => {
    const doc = (await t.http().get('/docs/openapi.json').expect(200)).body;
    expect(doc.paths['/api/events'].post.responses['403'].content['application/json'].schema.properties.code.enum).toEqual(['forbidden']);
  });

  it('answers a restricted key the body 400 before the 403, and the 403 before an unknown organization 404', async () => {
    const { token } = await t.identity.createPlatformKey('own only', { organizations: [own] });
    expect((await send(token, { ...event(other), extra: 1 })).status).toBe(400);
    expect(await send(token, event(999_999))).toEqual(FORBIDDEN);
    const everyOrganization = await t.identity.createPlatformKey('every organization');
    expect(await send(everyOrganization.token, event(999_999))).toEqual({ status: 404, body: { code: 'not found' } });
  });

  it('answers an expired key 401 unauthorized, like a revoked one', async () => {
    const expiring = await t.identity.createPlatformKey('expiring', { expiresInDays: 1 });
    expect((await send(expiring.token, event(own))).status).toBe(202);
    await t.dataSource.query('UPDATE platform_keys SET expires_at = ? WHERE id = ?', ['2000-01-01 00:00:00.000', expiring.id]);
    expect(await send(expiring.token, event(own))).toEqual(UNAUTHORIZED);

    const revoked = await t.identity.createPlatformKey('revoked by id');
    await t.identity.revokePlatformKey({ id: revoked.id });
    expect(await send(revoked.token, event(own))).toEqual(UNAUTHORIZED);
  });

  it('shows no last use before the first request and the time of it after (written at once for a fresh key)', async () => {
    const { id, token } = await t.identity.createPlatformKey('fresh');
    expect((await listed(id)).lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await send(token, event(own))).status).toBe(202);
    // the write is not awaited by the request: it lands just after
    await expect.poll(async () => (await listed(id)).lastUsedAt, { timeout: 5_000 }).not.toBeNull();
    const lastUsedAt = Date.parse((await listed(id)).lastUsedAt!);
    expect(lastUsedAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(lastUsedAt).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it('writes one audit entry per change, none for a failed create or a second revoke', async () => {
    const audited = async () => (await t.identity.operatorAudit(1_000)).length;
    const before = await audited();
    await expect(t.identity.createPlatformKey('nowhere', { organizations: [own, 999_999] })).rejects.toMatchObject({ code: 'not found' });
    expect(await audited()).toBe(before);
    expect((await t.identity.listPlatformKeys()).map((key) => key.name)).not.toContain('nowhere');

    const { id } = await t.identity.createPlatformKey('audited', { organizations: [other, own] });
    await t.identity.revokePlatformKey({ id });
    await t.identity.revokePlatformKey({ id });
    const [revoked, created] = await t.identity.operatorAudit(2);
    const scope = [own, other].sort((a, b) => a - b);
    expect(created).toEqual({
      id: expect.any(Number),
      at: expect.any(String),
      action: 'platform_key.created',
      platformKey: { id, name: 'audited' },
      organizations: scope,
    });
    expect(revoked).toMatchObject({ action: 'platform_key.revoked', platformKey: { id, name: 'audited' }, organizations: scope });
    expect(await audited()).toBe(before + 2);
  });
});
