import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardsService } from '../../src/cards/cards.service';
import { EventRetention } from '../../src/delivery/events/event-retention';
import { createTestDatabase, DatabaseKind, describeEachDatabase, describeOnMariadb } from '../support/databases';
import { DeliveryHarness, HOOKS, HOOKS_ZONE, newPath, PUBLIC_A, startDeliveryTarget } from '../support/delivery-harness';
import { rawExchange } from '../support/raw-http';
import { TestApp } from '../support/test-app';
import { ReceivedRequest, startWebhookReceiver, TEST_CA_FILE, WebhookReceiver } from '../support/webhook-receiver';

/*
 * Event delivery end to end (docs/api.md 10.1-10.6), against real parts: an HTTPS receiver on
 * loopback with a certificate of its own (trusted through DELIVERY_CA_FILE), an HTTP CONNECT
 * proxy that maps the public addresses the test DNS server answers to that receiver (so every
 * SSRF rule stays on and no packet leaves the machine), and the stock `standardwebhooks` and
 * `svix` libraries verifying every request.
 */

const REBIND = 'rebind.example.com';
/** Resolves to the receiver too, but its certificate (*.example.com) does not name it. */
const MISMATCHED = 'hooks.example.org';
const ZONE = { ...HOOKS_ZONE, [REBIND]: { A: [PUBLIC_A] }, [MISMATCHED]: { A: [PUBLIC_A] } };
const SCHEDULE_SECONDS = [1, 1];

/** Verifies a received request with both stock libraries; throws when either refuses it. */
function verifyWithBoth(request: ReceivedRequest, secret: string): unknown {
  const headers = {
    'webhook-id': request.headers['webhook-id'],
    'webhook-timestamp': request.headers['webhook-timestamp'],
    'webhook-signature': request.headers['webhook-signature'],
  };
  new SvixWebhook(secret).verify(request.body, {
    'svix-id': headers['webhook-id'],
    'svix-timestamp': headers['webhook-timestamp'],
    'svix-signature': headers['webhook-signature'],
  });
  return new StandardWebhook(secret).verify(request.body, headers);
}

describeEachDatabase('event delivery', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind, { zone: ZONE, env: { DELIVERY_RETRY_SCHEDULE: SCHEDULE_SECONDS.join(',') } });
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  describe('the request', () => {
    it('arrives signed so that standardwebhooks and svix both verify it, with the documented headers and body', async () => {
      const p = newPath();
      const { organizationId, secrets } = await h.organizationWith({ signed: { url: `https://${HOOKS}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.created', organization: organizationId, data: { amount: 42, currency: 'EUR' } });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ id: expect.stringMatching(/^evt_[A-Za-z0-9_-]{22}$/), deliveries: 1 });

      const [request] = await receiver.waitFor(p, 1);
      expect(verifyWithBoth(request, secrets.signed)).toEqual({
        type: 'transaction.created',
        timestamp: expect.any(String),
        data: { amount: 42, currency: 'EUR' },
      });
      expect(request.method).toBe('POST');
      expect(request.headers['webhook-id']).toBe(res.body.id);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toMatch(/^platform-api\/\d+\.\d+\.\d+$/);
      expect(request.headers.host).toBe(HOOKS);
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(JSON.parse(request.body).timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect((await h.settled(res.body.id)).map((row) => row.state)).toEqual(['succeeded']);
    });

    it('goes to the per-event URL when one is set, else to url', async () => {
      const [all, created] = [newPath(), newPath()];
      const { organizationId } = await h.organizationWith({
        routed: { url: `https://${HOOKS}${all}`, transaction: { created: `https://${HOOKS}${created}` } },
      });
      await h.sendEvent({ type: 'transaction.created', organization: organizationId, data: {} });
      await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
      expect(JSON.parse((await receiver.waitFor(created, 1))[0].body).type).toBe('transaction.created');
      expect(JSON.parse((await receiver.waitFor(all, 1))[0].body).type).toBe('user.updated');
    });

    it('fans out to every webhook of the organization, each signed with its own secret', async () => {
      const [a, b] = [newPath(), newPath()];
      const { organizationId, secrets } = await h.organizationWith({
        first: { url: `https://${HOOKS}${a}` },
        second: { url: `https://${HOOKS}${b}` },
      });
      const res = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { user: 7 } });
      expect(res.body.deliveries).toBe(2);
      verifyWithBoth((await receiver.waitFor(a, 1))[0], secrets.first);
      const [toSecond] = await receiver.waitFor(b, 1);
      verifyWithBoth(toSecond, secrets.second);
      expect(() => verifyWithBoth(toSecond, secrets.first)).toThrow();
    });

    it('accepts an event for an organization without webhooks with 0 deliveries', async () => {
      const { organizationId } = await t.member('owner');
      expect(await h.sendEvent({ type: 'card.updated', organization: organizationId, data: { card: 1, status: 'active' } })).toMatchObject({
        status: 202,
        body: { deliveries: 0 },
      });
    });

    it("delivers the platform's data exactly as handed in, whatever its members (card.updated too; the receiver holds it to the catalogue)", async () => {
      const p = newPath();
      const { organizationId } = await h.organizationWith({ cards: { url: `https://${HOOKS}${p}` } });
      const data = { card: 'c_91', status: { from: 'active', to: 'frozen' }, note: 'ünïcode' };
      expect((await h.sendEvent({ type: 'card.updated', organization: organizationId, data })).status).toBe(202);
      expect(JSON.parse((await receiver.waitFor(p, 1))[0].body).data).toEqual(data);
    });
  });

  describe('retries (docs/api.md 10.5)', () => {
    it('retries a 500 on the schedule with the same id and body, a fresh signature each time, then fails', async () => {
      const p = newPath();
      receiver.on(p, { status: 500 });
      const { organizationId, secrets } = await h.organizationWith({ failing: { url: `https://${HOOKS}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: { n: 1 } });
      const requests = await receiver.waitFor(p, SCHEDULE_SECONDS.length + 1);
      expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([res.body.id]));
      expect(new Set(requests.map((r) => r.body)).size).toBe(1);
      for (const request of requests) verifyWithBoth(request, secrets.failing);
      expect(requests[1].at - requests[0].at).toBeGreaterThanOrEqual(SCHEDULE_SECONDS[0] * 900);
      expect(await h.settled(res.body.id)).toEqual([{ state: 'failed', attempts: 3, lastError: 'http 500', lastStatus: 500 }]);
      // failed is final: no attempt comes after the third
      expect(receiver.received.filter((r) => r.path === p)).toHaveLength(3);
    });

    it('stops at a 410', async () => {
      const p = newPath();
      receiver.on(p, { status: 410 });
      const { organizationId } = await h.organizationWith({ gone: { url: `https://${HOOKS}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      expect(await h.settled(res.body.id)).toEqual([{ state: 'failed', attempts: 1, lastError: 'http 410', lastStatus: 410 }]);
    });

    it('never follows a redirect: a 3xx is a failed attempt', async () => {
      const [p, target] = [newPath(), newPath()];
      receiver.on(p, { status: 302, headers: { location: `https://${HOOKS}${target}` } });
      const { organizationId } = await h.organizationWith({ moved: { url: `https://${HOOKS}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      expect(await h.settled(res.body.id)).toEqual([{ state: 'failed', attempts: 3, lastError: 'http 302', lastStatus: 302 }]);
      expect(receiver.received.filter((r) => r.path === target)).toEqual([]);
    });

    it('waits at least a 429 Retry-After before the next attempt', async () => {
      const p = newPath();
      receiver.on(p, { status: 429, headers: { 'retry-after': '3' } });
      const { organizationId } = await h.organizationWith({ limited: { url: `https://${HOOKS}${p}` } });
      await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      const [first, second] = await receiver.waitFor(p, 2, 10_000);
      expect(second.at - first.at).toBeGreaterThanOrEqual(2900);
    });

    it('counts a receiver that does not answer in time as a timeout', async () => {
      const p = newPath();
      receiver.on(p, 'hang');
      const { organizationId } = await h.organizationWith({ hanging: { url: `https://${HOOKS}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      await expect
        .poll(async () => (await h.deliveriesOf(res.body.id))[0], { timeout: 15_000 })
        .toMatchObject({ lastError: 'timeout', lastStatus: null });
    });

    it('counts a reset connection as connection failed', async () => {
      const p = newPath();
      receiver.on(p, 'reset');
      const { organizationId } = await h.organizationWith({ reset: { url: `https://${HOOKS}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      expect(await h.settled(res.body.id)).toEqual([{ state: 'failed', attempts: 3, lastError: 'connection failed', lastStatus: null }]);
    });
  });

  describe('SSRF at delivery (docs/api.md 10.4)', () => {
    it('refuses a host that resolved publicly at registration and to 127.0.0.1 at delivery, before any connection', async () => {
      const p = newPath();
      const { organizationId } = await h.organizationWith({ rebound: { url: `https://${REBIND}${p}` } });
      t.dns.set(REBIND, { A: ['127.0.0.1'] });
      try {
        const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
        expect(await h.settled(res.body.id)).toEqual([{ state: 'failed', attempts: 3, lastError: 'blocked address', lastStatus: null }]);
      } finally {
        t.dns.set(REBIND, { A: [PUBLIC_A] });
      }
      expect(receiver.received.filter((r) => r.path === p)).toEqual([]);
      expect(h.proxy.requested.filter((target) => !target.startsWith(`${PUBLIC_A}:`))).toEqual([]);
    });

    it('fails an attempt whose host no longer resolves with does not resolve', async () => {
      const p = newPath();
      const { organizationId } = await h.organizationWith({ vanished: { url: `https://${REBIND}${p}` } });
      t.dns.set(REBIND, 'NXDOMAIN');
      try {
        const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
        expect((await h.settled(res.body.id))[0]).toMatchObject({ state: 'failed', lastError: 'does not resolve' });
      } finally {
        t.dns.set(REBIND, { A: [PUBLIC_A] });
      }
    });

    it('fails an attempt whose resolver does not answer with dns unavailable', async () => {
      const p = newPath();
      const { organizationId } = await h.organizationWith({ silent: { url: `https://${REBIND}${p}` } });
      t.dns.set(REBIND, 'SERVFAIL');
      try {
        const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
        expect((await h.settled(res.body.id))[0]).toMatchObject({ state: 'failed', lastError: 'dns unavailable' });
      } finally {
        t.dns.set(REBIND, { A: [PUBLIC_A] });
      }
    });

    it('verifies the certificate for the host name: a receiver whose certificate does not name it fails with tls error', async () => {
      const p = newPath();
      const { organizationId } = await h.organizationWith({ mismatched: { url: `https://${MISMATCHED}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      expect(await h.settled(res.body.id)).toEqual([{ state: 'failed', attempts: 3, lastError: 'tls error', lastStatus: null }]);
      expect(receiver.received.filter((r) => r.path === p)).toEqual([]);
    });

    it('tunnels every attempt through the proxy to the vetted address', async () => {
      expect(h.proxy.requested.length).toBeGreaterThan(0);
      expect(new Set(h.proxy.requested)).toEqual(new Set([`${PUBLIC_A}:443`]));
    });
  });

  describe('the answer', () => {
    it('reads at most 1 KiB of the answer body and keeps none of it', async () => {
      const p = newPath();
      const marker = `answer-${randomBytes(8).toString('hex')}`;
      receiver.on(p, { status: 200, body: `${marker}${'x'.repeat(512 * 1024)}` });
      const { organizationId } = await h.organizationWith({ chatty: { url: `https://${HOOKS}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      expect((await h.settled(res.body.id))[0].state).toBe('succeeded');
      for (const table of ['deliveries', 'delivery_attempts', 'events']) {
        expect(JSON.stringify(await t.dataSource.query(`SELECT * FROM ${table}`))).not.toContain(marker);
      }
    });
  });

  describe('retention (docs/api.md 10.8)', () => {
    it('deletes events older than DELIVERY_RETENTION_DAYS with their deliveries and attempts, and keeps the rest', async () => {
      const { organizationId } = await h.organizationWith({ kept: { url: `https://${HOOKS}${newPath()}` } });
      const old = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
      const recent = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
      await h.settled(old.body.id);
      await t.dataSource.query("UPDATE events SET created_at = '2000-01-01 00:00:00.000' WHERE id = ?", [old.body.id]);
      expect(await t.app.get(EventRetention).prune(new Date())).toBeGreaterThanOrEqual(1);
      expect(await t.dataSource.query('SELECT id FROM events WHERE id IN (?, ?)', [old.body.id, recent.body.id])).toEqual([
        { id: recent.body.id },
      ]);
      expect(await h.deliveriesOf(old.body.id)).toEqual([]);
    });
  });

  describe('webhook changes', () => {
    it('cancels the open deliveries of a deleted webhook; they are never sent again', async () => {
      const p = newPath();
      receiver.on(p, { status: 503 });
      const { organizationId, cookie } = await h.organizationWith({ doomed: { url: `https://${HOOKS}${p}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      await receiver.waitFor(p, 1);
      expect((await t.http().delete('/api/webhook/doomed').set('Cookie', cookie)).status).toBe(200);
      expect((await h.deliveriesOf(res.body.id)).map((row) => row.state)).toEqual(['cancelled']);
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(receiver.received.filter((r) => r.path === p)).toHaveLength(1);
    });

    it('sends the retries of an event to the URL a PATCH fixed', async () => {
      const [broken, fixed] = [newPath(), newPath()];
      receiver.on(broken, { status: 500 });
      const { organizationId, cookie } = await h.organizationWith({ fixable: { url: `https://${HOOKS}${broken}` } });
      const res = await h.sendEvent({ type: 'transaction.updated', organization: organizationId, data: {} });
      await receiver.waitFor(broken, 1);
      expect(
        (
          await t
            .http()
            .patch('/api/webhook/fixable')
            .set('Cookie', cookie)
            .send({ url: `https://${HOOKS}${fixed}` })
        ).status,
      ).toBe(200);
      expect((await receiver.waitFor(fixed, 1))[0].headers['webhook-id']).toBe(res.body.id);
      expect((await h.settled(res.body.id))[0].state).toBe('succeeded');
    });
  });

  describe('ingest (docs/api.md 10.1)', () => {
    it('answers a repeated Idempotency-Key as the first call did and creates nothing more', async () => {
      const p = newPath();
      const { organizationId } = await h.organizationWith({ once: { url: `https://${HOOKS}${p}` } });
      const body = { type: 'transaction.completed', organization: organizationId, data: { id: 'tx_1' } };
      const first = await h.sendEvent(body, { 'Idempotency-Key': 'tx_1-completed' });
      const second = await h.sendEvent(body, { 'Idempotency-Key': 'tx_1-completed' });
      expect([first.status, second.status]).toEqual([202, 202]);
      expect(second.body).toEqual(first.body);
      const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM events WHERE organization_id = ?', [organizationId]);
      expect(Number(n)).toBe(1);
      expect((await receiver.waitFor(p, 1))[0].headers['webhook-id']).toBe(first.body.id);
    });

    it('answers the same Idempotency-Key with another body 409 idempotency conflict', async () => {
      const { organizationId } = await t.member('owner');
      await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { v: 1 } }, { 'Idempotency-Key': 'k' });
      const res = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { v: 2 } }, { 'Idempotency-Key': 'k' });
      expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: { code: 'idempotency conflict' } });
    });

    it('keeps idempotency keys per organization', async () => {
      const [a, b] = [await t.member('owner'), await t.member('owner')];
      const first = await h.sendEvent({ type: 'user.updated', organization: a.organizationId, data: {} }, { 'Idempotency-Key': 'shared' });
      const second = await h.sendEvent({ type: 'user.updated', organization: b.organizationId, data: {} }, { 'Idempotency-Key': 'shared' });
      expect(second.status).toBe(202);
      expect(second.body.id).not.toBe(first.body.id);
    });

    it('answers 10 parallel calls with one Idempotency-Key with one event', async () => {
      const { organizationId } = await h.organizationWith({ parallel: { url: `https://${HOOKS}${newPath()}` } });
      const body = { type: 'transaction.created', organization: organizationId, data: { id: 'tx_p' } };
      const answers = await Promise.all(Array.from({ length: 10 }, () => h.sendEvent(body, { 'Idempotency-Key': 'parallel' })));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      const [{ n }] = await t.dataSource.query('SELECT COUNT(*) AS n FROM deliveries WHERE organization_id = ?', [organizationId]);
      expect(Number(n)).toBe(1);
    });

    it.each([
      ['no Authorization', {}],
      ['a session cookie', { Cookie: '__Secure-auth.session_token=x' }],
      ['another scheme', { Authorization: 'Basic abc' }],
    ])('answers %s 401 unauthorized', async (_, headers) => {
      const { organizationId } = await t.member('owner');
      const res = await t.http().post('/api/events').set(headers).send({ type: 'user.updated', organization: organizationId, data: {} });
      expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { code: 'unauthorized' } });
    });

    it('answers a live platform key followed by a second Authorization header 401 unauthorized (counted in the raw headers)', async () => {
      const { organizationId } = await t.member('owner');
      const server = t.app.getHttpServer();
      if (!server.listening) await t.app.listen(0, '127.0.0.1');
      const body = JSON.stringify({ type: 'user.updated', organization: organizationId, data: {} });
      const res = await rawExchange(
        (server.address() as AddressInfo).port,
        `POST /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${h.platformKey}\r\nAuthorization: Basic abc\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
      expect({ status: res.status, body: JSON.parse(res.body) as unknown }).toEqual({ status: 401, body: { code: 'unauthorized' } });
    });

    it('answers a wallet token 401 unauthorized (a platform key is a kind of its own)', async () => {
      const { userId, organizationId } = await t.member('owner');
      const { token } = await t.identity.createWalletToken(userId, 3600);
      const res = await t
        .http()
        .post('/api/events')
        .set('Authorization', `Bearer ${token}`)
        .send({ type: 'user.updated', organization: organizationId, data: {} });
      expect(res.status).toBe(401);
    });

    it('answers a valid platform key beside a cookie 401 unauthorized', async () => {
      const { organizationId } = await t.member('owner');
      const res = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} }, { Cookie: 'a=b' });
      expect(res.status).toBe(401);
    });

    it('answers a revoked platform key 401 unauthorized', async () => {
      const { token } = await t.identity.createPlatformKey('revoked');
      await t.identity.revokePlatformKey(token);
      const res = await t
        .http()
        .post('/api/events')
        .set('Authorization', `Bearer ${token}`)
        .send({ type: 'user.updated', organization: 1, data: {} });
      expect(res.status).toBe(401);
    });

    it.each([
      ['an unknown type', { type: 'card.deleted', organization: 1, data: {} }],
      ['a string organization', { type: 'user.updated', organization: '1', data: {} }],
      ['data that is an array', { type: 'user.updated', organization: 1, data: [] }],
      ['no data', { type: 'user.updated', organization: 1 }],
      ['an unknown member', { type: 'user.updated', organization: 1, data: {}, extra: true }],
      ['a body that is not an object', [1, 2]],
    ])('answers %s 400 bad request', async (_, body) => {
      const res = await h.sendEvent(body);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'bad request' });
    });

    it('answers a malformed Idempotency-Key 400 bad request', async () => {
      const { organizationId } = await t.member('owner');
      const res = await h.sendEvent(
        { type: 'user.updated', organization: organizationId, data: {} },
        { 'Idempotency-Key': 'x'.repeat(256) },
      );
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'bad request' });
    });

    it('answers an unknown organization 404 not found', async () => {
      const res = await h.sendEvent({ type: 'user.updated', organization: 2_000_000_000, data: {} });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 404, code: 'not found' });
    });

    it('takes a body up to 256 KiB and answers a larger one 413 payload too large', async () => {
      const { organizationId } = await t.member('owner');
      const big = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { blob: 'x'.repeat(200 * 1024) } });
      expect(big.status).toBe(202);
      const tooBig = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { blob: 'x'.repeat(257 * 1024) } });
      expect({ status: tooBig.status, body: tooBig.body }).toEqual({ status: 413, body: { code: 'payload too large' } });
    });

    it('stores event data encrypted: nothing of it is readable in the database', async () => {
      const marker = `personal-${randomBytes(8).toString('hex')}`;
      const { organizationId } = await t.member('owner');
      expect((await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { email: marker } })).status).toBe(202);
      const rows: Record<string, unknown>[] = await t.dataSource.query('SELECT * FROM events');
      expect(JSON.stringify(rows)).not.toContain(marker);
    });

    it('emits card.updated when a card changes status (the CLI path, docs/api.md 10.8)', async () => {
      const p = newPath();
      const holder = await t.cardHolder({ provisioningId: 'prov-emit', provisioningSecret: 'pss-emit' });
      const [{ organizationId }] = await t.dataSource.query('SELECT organization_id AS organizationId FROM cards WHERE id = ?', [
        holder.cardId,
      ]);
      const { cookie } = await t.member('owner', Number(organizationId));
      expect(
        (
          await t
            .http()
            .post('/api/webhook/cards')
            .set('Cookie', cookie)
            .send({ url: `https://${HOOKS}${p}` })
        ).status,
      ).toBe(201);
      await t.app.get(CardsService).setStatus(holder.cardId, 'frozen');
      expect(JSON.parse((await receiver.waitFor(p, 1))[0].body)).toMatchObject({
        type: 'card.updated',
        data: { card: holder.cardId, status: 'frozen' },
      });
    });
  });

  // The receiver checks every request against the event catalogue, and fails the suite on close if one is off it.
  it('delivered every platform type, each request as the event catalogue describes it (docs/api.md 10.11)', () => {
    expect([...receiver.eventTypes()].sort()).toEqual([
      'card.updated',
      'transaction.completed',
      'transaction.created',
      'transaction.updated',
      'user.updated',
    ]);
  });
});

describeOnMariadb('idempotency across instances', () => {
  it('answers 10 parallel calls with one key, spread over two instances, with exactly one event', async () => {
    const database = await createTestDatabase('mariadb');
    const secretKey = randomBytes(32).toString('base64');
    const env = { DELIVERY_CONCURRENCY: '0' };
    const first = await TestApp.start('mariadb', { database, secretKey, env });
    const second = await first.another({ env });
    try {
      const { token } = await first.identity.createPlatformKey('platform');
      const { organizationId } = await first.member('owner');
      const body = { type: 'user.updated', organization: organizationId, data: { n: 1 } };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? first : second)
            .http()
            .post('/api/events')
            .set('Authorization', `Bearer ${token}`)
            .set('Idempotency-Key', 'race')
            .send(body),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(202));
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      const [{ n }] = await first.dataSource.query('SELECT COUNT(*) AS n FROM events');
      expect(Number(n)).toBe(1);
    } finally {
      await second.close();
      await first.close();
      await database.drop();
    }
  });
});

describeEachDatabase('TRUSTED_CIDRS: a receiver inside the operator network', (kind: DatabaseKind) => {
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(() => receiver?.close());

  const target = (p: string) => `https://127.0.0.1:${receiver.port}${p}`;

  it('refuses a loopback URL without it (400 invalid url)', async () => {
    const t = await TestApp.start(kind);
    try {
      const { cookie } = await t.member('owner');
      const res = await t
        .http()
        .post('/api/webhook/local')
        .set('Cookie', cookie)
        .send({ url: target('/refused') });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'invalid url' });
    } finally {
      await t.close();
    }
  });

  it('registers and delivers to an address inside a trusted range, connecting straight to it', async () => {
    const t = await TestApp.start(kind, {
      env: { TRUSTED_CIDRS: '127.0.0.1/32', DELIVERY_CA_FILE: TEST_CA_FILE, DELIVERY_POLL_MS: '100', DELIVERY_TIMEOUT_MS: '1500' },
    });
    try {
      const { organizationId, cookie } = await t.member('owner');
      const created = await t
        .http()
        .post('/api/webhook/local')
        .set('Cookie', cookie)
        .send({ url: target('/trusted') });
      expect(created.status).toBe(201);
      const { token } = await t.identity.createPlatformKey('platform');
      const res = await t
        .http()
        .post('/api/events')
        .set('Authorization', `Bearer ${token}`)
        .send({ type: 'user.updated', organization: organizationId, data: { ok: true } });
      expect(res.status).toBe(202);
      const [request] = await receiver.waitFor('/trusted', 1);
      expect(verifyWithBoth(request, created.body.secret)).toMatchObject({ type: 'user.updated', data: { ok: true } });
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('dispatcher at shutdown (docs/api.md 10.6)', (kind: DatabaseKind) => {
  it('lets an attempt in flight finish and records it before the instance closes', async () => {
    const target = await startDeliveryTarget();
    const database = await createTestDatabase(kind);
    const secretKey = randomBytes(32).toString('base64');
    const t = await TestApp.start(kind, { database, secretKey, zone: HOOKS_ZONE, env: { ...target.env, DELIVERY_POLL_MS: '100' } });
    const reader = await TestApp.start(kind, { database, secretKey, env: { DELIVERY_CONCURRENCY: '0' } });
    try {
      target.receiver.on('/slow', { status: 200, delayMs: 800 });
      const { organizationId, cookie } = await t.member('owner');
      expect(
        (
          await t
            .http()
            .post('/api/webhook/slow')
            .set('Cookie', cookie)
            .send({ url: `https://${HOOKS}/slow` })
        ).status,
      ).toBe(201);
      const { token } = await t.identity.createPlatformKey('platform');
      const res = await t
        .http()
        .post('/api/events')
        .set('Authorization', `Bearer ${token}`)
        .send({ type: 'user.updated', organization: organizationId, data: {} });
      await target.receiver.waitFor('/slow', 1);
      await t.close();
      const [row] = await reader.dataSource.query('SELECT state, attempts FROM deliveries WHERE event_id = ?', [res.body.id]);
      expect({ state: row.state, attempts: Number(row.attempts) }).toEqual({ state: 'succeeded', attempts: 1 });
    } finally {
      await reader.close();
      await database.drop();
      await target.close();
    }
  });
});
