import { afterAll, beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { freePort } from '../support/ports';
import { TestApp } from '../support/test-app';
import { startWebhookReceiver, TEST_CA_FILE, WebhookReceiver } from '../support/webhook-receiver';

/*
 * TRUSTED_CIDRS entries that name their ports (docs/api.md 10.4): with `127.0.0.1/32:<receiver's
 * port>`, the receiver on loopback is registered and delivered to, and every other port of
 * loopback (this service's, the database's) is refused as a private address would be: 400
 * invalid url at registration, `blocked address` at delivery, before any connection, so the
 * delivery log cannot tell an open port from a closed one. A range is matched against the address
 * dialled: an AAAA answer ::ffff:127.0.0.1 reaches 127.0.0.1 and is trusted; ::127.0.0.1, the
 * IPv4-compatible form, is the IPv6 ::7f00:1 and is not (issue 26).
 */

/** Resolves to loopback: the receiver's certificate names *.example.com. */
const INTERNAL = 'internal.example.com';
/** IPv4-mapped loopback, ::ffff:127.0.0.1: a connection to it goes to 127.0.0.1. */
const MAPPED = 'mapped.example.com';
/** IPv4-compatible loopback, ::127.0.0.1: the IPv6 address ::7f00:1, in ::/8. */
const COMPATIBLE = 'compatible.example.com';
/** Public at registration, loopback at delivery. */
const MOVING = 'moving.example.com';
const PUBLIC_A = '1.1.1.10';

describeEachDatabase('TRUSTED_CIDRS with ports', (kind: DatabaseKind) => {
  let receiver: WebhookReceiver;
  let t: TestApp;
  let otherPort: number;
  let platformKey: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    otherPort = await freePort();
    t = await TestApp.start(kind, {
      zone: {
        [INTERNAL]: { A: ['127.0.0.1'] },
        [MAPPED]: { AAAA: ['::ffff:127.0.0.1'] },
        [COMPATIBLE]: { AAAA: ['::127.0.0.1'] },
        [MOVING]: { A: [PUBLIC_A] },
      },
      env: {
        TRUSTED_CIDRS: `127.0.0.1/32:${receiver.port}`,
        DELIVERY_CA_FILE: TEST_CA_FILE,
        DELIVERY_POLL_MS: '100',
        DELIVERY_TIMEOUT_MS: '1500',
        DELIVERY_RETRY_SCHEDULE: '3600',
      },
    });
    platformKey = (await t.identity.createPlatformKey('platform')).token;
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const register = (cookie: string, name: string, url: string) => t.http().post(`/api/webhook/${name}`).set('Cookie', cookie).send({ url });
  const sendEvent = (organizationId: number, data: object) =>
    t
      .http()
      .post('/api/events')
      .set('Authorization', `Bearer ${platformKey}`)
      .send({ type: 'user.updated', organization: organizationId, data });

  /** Polls until the event's delivery has had an attempt. */
  const firstAttempt = async (eventId: string): Promise<{ attempts: number; lastError: string | null }> => {
    const delivery = async () => {
      const [row] = await t.dataSource.query('SELECT attempts, last_error AS lastError FROM deliveries WHERE event_id = ?', [eventId]);
      return row === undefined ? { attempts: 0, lastError: null } : { attempts: Number(row.attempts), lastError: row.lastError };
    };
    await expect.poll(async () => (await delivery()).attempts, { timeout: 10_000, interval: 50 }).toBeGreaterThan(0);
    return delivery();
  };

  it.each([
    ['an IP literal on another port', () => `https://127.0.0.1:${otherPort}/x`],
    ['an IP literal without a port (443)', () => 'https://127.0.0.1/x'],
    ['a name resolving to loopback, on another port', () => `https://${INTERNAL}:${otherPort}/x`],
    ['a name resolving to loopback, without a port (443)', () => `https://${INTERNAL}/x`],
    [
      "a name whose AAAA is ::127.0.0.1 (IPv4-compatible: dialled as ::7f00:1), on the entry's port",
      () => `https://${COMPATIBLE}:${receiver.port}/x`,
    ],
  ])('refuses %s at registration with 400 invalid url, as not public', async (_, url) => {
    const { cookie } = await t.member('owner');
    const res = await register(cookie, 'elsewhere', url());
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { code: 'invalid url', message: ['url: must not point to a private, loopback or reserved address'] },
    });
  });

  it.each([
    ['an IP literal', (p: string) => `https://127.0.0.1:${receiver.port}${p}`],
    ['a name resolving to loopback', (p: string) => `https://${INTERNAL}:${receiver.port}${p}`],
    ['a name whose AAAA is ::ffff:127.0.0.1 (IPv4-mapped: dialled as 127.0.0.1)', (p: string) => `https://${MAPPED}:${receiver.port}${p}`],
  ])("registers and delivers to %s on the entry's port", async (label, url) => {
    const path = `/${label.replace(/\W+/g, '-')}`;
    const { organizationId, cookie } = await t.member('owner');
    const created = await register(cookie, 'receiver', url(path));
    expect(created.status).toBe(201);
    expect((await sendEvent(organizationId, { port: 'trusted' })).status).toBe(202);
    const [request] = await receiver.waitFor(path, 1);
    expect(new Webhook(created.body.secret).verify(request.body, request.headers)).toMatchObject({ data: { port: 'trusted' } });
  });

  it('fails an attempt to a trusted address on another port with blocked address, before any connection', async () => {
    const { organizationId, cookie } = await t.member('owner');
    expect((await register(cookie, 'moving', `https://${MOVING}:${otherPort}/x`)).status).toBe(201);
    t.dns.set(MOVING, { A: ['127.0.0.1'] });
    try {
      const res = await sendEvent(organizationId, {});
      expect(res.status).toBe(202);
      expect(await firstAttempt(res.body.id)).toEqual({ attempts: 1, lastError: 'blocked address' });
    } finally {
      t.dns.set(MOVING, { A: [PUBLIC_A] });
    }
  });

  it("fails an attempt to a name now answering AAAA ::127.0.0.1 on the entry's port with blocked address: ::7f00:1 is no trusted address", async () => {
    const { organizationId, cookie } = await t.member('owner');
    expect((await register(cookie, 'moving', `https://${MOVING}:${receiver.port}/compatible`)).status).toBe(201);
    t.dns.set(MOVING, { AAAA: ['::127.0.0.1'] });
    try {
      const res = await sendEvent(organizationId, {});
      expect(res.status).toBe(202);
      expect(await firstAttempt(res.body.id)).toEqual({ attempts: 1, lastError: 'blocked address' });
    } finally {
      t.dns.set(MOVING, { A: [PUBLIC_A] });
    }
  });
});
