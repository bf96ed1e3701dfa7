import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, newPath } from '../support/delivery-harness';
import { TestApp } from '../support/test-app';
import type { ReceivedRequest } from '../support/webhook-receiver';

/*
 * Signing-secret rotation (docs/api.md 10.7): a new secret shown once; during the grace period
 * every attempt carries two signatures (the new secret's first), each verifying with its own
 * secret under the stock `standardwebhooks` library; after it, or with graceSeconds 0, only the
 * new one. Concurrent rotations leave exactly one current and one previous secret.
 */

describeEachDatabase('signing secret rotation', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind);
    t = h.app;
  });
  afterAll(() => h?.close());

  async function webhook(): Promise<{ organizationId: number; cookie: string; path: string; secret: string }> {
    const path = newPath();
    const { organizationId, cookie, secrets } = await h.organizationWith({ rotating: { url: `https://${HOOKS}${path}` } });
    return { organizationId, cookie, path, secret: secrets.rotating };
  }

  const rotate = (cookie: string, body?: object) => {
    const req = t.http().post('/api/webhook/rotating/secret/rotate').set('Cookie', cookie);
    return body === undefined ? req : req.send(body);
  };

  /** Sends an event and returns the request the receiver got for it. */
  async function delivered(organizationId: number, path: string): Promise<ReceivedRequest> {
    const before = h.receiver.received.filter((r) => r.path === path).length;
    const res = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
    expect(res.status).toBe(202);
    return (await h.receiver.waitFor(path, before + 1))[before];
  }

  const signatures = (request: ReceivedRequest) => request.headers['webhook-signature'].split(' ');
  const signatureBy = (secret: string, request: ReceivedRequest) =>
    new Webhook(secret).sign(request.headers['webhook-id'], new Date(Number(request.headers['webhook-timestamp']) * 1000), request.body);
  const verifies = (secret: string, request: ReceivedRequest) => {
    try {
      new Webhook(secret).verify(request.body, request.headers);
      return true;
    } catch {
      return false;
    }
  };

  it('answers a new secret and when the previous one expires (a day by default)', async () => {
    const { cookie, secret } = await webhook();
    const res = await rotate(cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), previousExpiresAt: expect.any(String) });
    expect(res.body.secret).not.toBe(secret);
    expect(Math.abs(Date.parse(res.body.previousExpiresAt) - Date.now() - 86_400_000)).toBeLessThan(60_000);
  });

  it('signs with both secrets during the grace period, the new one first, each verifying alone', async () => {
    const { organizationId, cookie, path, secret: old } = await webhook();
    const { secret: fresh } = (await rotate(cookie, { graceSeconds: 3600 })).body;
    const request = await delivered(organizationId, path);
    expect(signatures(request)).toEqual([signatureBy(fresh, request), signatureBy(old, request)]);
    expect([verifies(fresh, request), verifies(old, request)]).toEqual([true, true]);
  });

  it('drops the previous secret at once with graceSeconds 0', async () => {
    const { organizationId, cookie, path, secret: old } = await webhook();
    const res = await rotate(cookie, { graceSeconds: 0 });
    expect(res.body.previousExpiresAt).toBeNull();
    const request = await delivered(organizationId, path);
    expect(signatures(request)).toEqual([signatureBy(res.body.secret, request)]);
    expect(verifies(old, request)).toBe(false);
  });

  it('stops signing with the previous secret once its grace period is over', async () => {
    const { organizationId, cookie, path, secret: old } = await webhook();
    const { secret: fresh } = (await rotate(cookie, { graceSeconds: 1 })).body;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const request = await delivered(organizationId, path);
    expect(signatures(request)).toEqual([signatureBy(fresh, request)]);
    expect(verifies(old, request)).toBe(false);
  });

  it('leaves exactly one current and one previous secret after two concurrent rotations', async () => {
    const { organizationId, cookie, path } = await webhook();
    const [a, b] = await Promise.all([rotate(cookie, { graceSeconds: 3600 }), rotate(cookie, { graceSeconds: 3600 })]);
    const request = await delivered(organizationId, path);
    const sigs = signatures(request);
    expect(sigs).toHaveLength(2);
    const bySecret = [a.body.secret, b.body.secret].map((secret) => signatureBy(secret, request));
    expect(new Set(sigs)).toEqual(new Set(bySecret));
  });

  it('keeps the current secret in the legacy create-or-update', async () => {
    const { cookie, path } = await webhook();
    const { secret: fresh } = (await rotate(cookie, { graceSeconds: 0 })).body;
    const legacy = await t
      .http()
      .post('/api/webhook')
      .set('Cookie', cookie)
      .send({ name: 'rotating', url: `https://${HOOKS}${path}` });
    expect(legacy.body.secret).toBe(fresh);
  });

  it.each([[{ graceSeconds: -1 }], [{ graceSeconds: 604_801 }], [{ graceSeconds: 1.5 }], [{ graceSeconds: '60' }], [{ grace: 60 }]])(
    'answers %j 400 bad request',
    async (body) => {
      const { cookie } = await webhook();
      const res = await rotate(cookie, body);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'bad request' });
    },
  );

  it('answers an unknown webhook 404 and a member 403 no permission', async () => {
    const stranger = await t.member('owner');
    expect((await rotate(stranger.cookie)).status).toBe(404);
    const { organizationId } = await webhook();
    const member = await t.member('member', organizationId);
    expect((await rotate(member.cookie)).status).toBe(403);
  });
});
