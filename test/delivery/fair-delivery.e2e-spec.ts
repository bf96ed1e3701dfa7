import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dateOf } from '../../src/database/sql-dialect';
import { createTestDatabase, DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, HOOKS_ZONE, newPath, startDeliveryTarget } from '../support/delivery-harness';
import { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * Fair delivery and endpoint health (docs/api.md 10.10) end to end, against the real parts of
 * test/support/delivery-harness.ts: an HTTPS receiver with its own certificate behind a CONNECT
 * proxy that maps the public address the test DNS server answers. One instance per database;
 * the limits are small so that each behaviour shows in about a second.
 */

const SLOW_MS = 1000;
const TIMEOUT_MS = 1500;
const COOLDOWN_MS = 1000;
const ENV = {
  DELIVERY_CONCURRENCY: '4',
  DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK: '2',
  DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
  DELIVERY_BREAKER_THRESHOLD: '2',
  DELIVERY_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
  DELIVERY_DISABLE_AFTER_DAYS: '0',
  DELIVERY_PENDING_PER_ORG_MAX: '20',
  RATE_LIMIT_ACTIONS_PER_WEBHOOK: '3',
};

describeEachDatabase('fair delivery and endpoint health', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind, { env: ENV });
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  const sendEvent = (organization: number, data: object = {}) => h.sendEvent({ type: 'user.updated', organization, data });

  const deliveries = async (webhook: string, cookie: string) =>
    (await t.http().get(`/api/webhook/${webhook}/deliveries`).set('Cookie', cookie)).body.data;

  it("attempts a healthy webhook's delivery at once while another organization's slow webhook has a backlog, which gets only its slots", async () => {
    const [slow, healthy] = [newPath(), newPath()];
    receiver.on(slow, { status: 200, delayMs: SLOW_MS });
    const a = await h.organizationWith({ slow: { url: `https://${HOOKS}${slow}` } });
    const b = await h.organizationWith({ healthy: { url: `https://${HOOKS}${healthy}` } });
    for (let i = 0; i < 6; i++) expect((await sendEvent(a.organizationId)).status).toBe(202);
    await receiver.waitFor(slow, 2);
    const sentAt = Date.now();
    expect((await sendEvent(b.organizationId)).status).toBe(202);
    const [arrived] = await receiver.waitFor(healthy, 1);
    // Had the slow webhook taken every slot, this delivery would have waited for one of its answers.
    expect(arrived.at - sentAt).toBeLessThan(SLOW_MS * 0.7);
    expect(receiver.peakInFlight(slow)).toBe(2);
    expect((await t.http().delete('/api/webhook/slow').set('Cookie', a.cookie)).status).toBe(200);
  });

  it('spreads the deliveries to a rate-limited webhook at its rate, all of them attempts that succeed', async () => {
    const p = newPath();
    const { organizationId, cookie } = await h.organizationWith({ limited: { url: `https://${HOOKS}${p}`, rateLimit: 4 } });
    expect((await t.http().get('/api/webhook/limited').set('Cookie', cookie)).body).toEqual({ url: `https://${HOOKS}${p}`, rateLimit: 4 });
    for (let i = 0; i < 6; i++) expect((await sendEvent(organizationId)).status).toBe(202);
    const arrivals = (await receiver.waitFor(p, 6)).map((request) => request.at).sort((x, y) => x - y);
    // Sent at least 250 ms apart; each arrival lags its send by 0 to LAG_MS (a loaded machine): any
    // two arrivals k sends apart are at least k * 250 - LAG_MS apart. Unlimited, they would come together.
    const LAG_MS = 200;
    for (let i = 0; i < arrivals.length; i++) {
      for (let j = i + 1; j < arrivals.length; j++) expect(arrivals[j] - arrivals[i]).toBeGreaterThanOrEqual((j - i) * 250 - LAG_MS);
    }
    await expect
      .poll(async () => (await deliveries('limited', cookie)).map((d: { state: string; attempts: number }) => [d.state, d.attempts]), {
        timeout: 10_000,
      })
      .toEqual(Array(6).fill(['succeeded', 1]));
  });

  it('disables a webhook whose attempts all failed (DELIVERY_DISABLE_AFTER_DAYS=0: after 10): reads, audit, the webhook.disabled event, no attempt, enable', async () => {
    const [failing, other] = [newPath(), newPath()];
    receiver.on(failing, { status: 500 });
    const { organizationId, cookie, secrets } = await h.organizationWith({
      failing: { url: `https://${HOOKS}${failing}` },
      other: { url: `https://${HOOKS}${other}` },
    });
    for (let i = 0; i < 4; i++) expect((await sendEvent(organizationId)).status).toBe(202);

    // The other webhook hears of it, signed like every event.
    const noticeOf = () => receiver.received.find((r) => r.path === other && JSON.parse(r.body).type === 'webhook.disabled');
    await expect.poll(noticeOf, { timeout: 15_000 }).toBeDefined();
    const notice = noticeOf()!;
    expect(new Webhook(secrets.other).verify(notice.body, notice.headers)).toMatchObject({
      type: 'webhook.disabled',
      data: { webhook: 'failing' },
    });

    expect((await t.http().get('/api/webhook/failing').set('Cookie', cookie)).body).toEqual({
      url: `https://${HOOKS}${failing}`,
      disabled: true,
    });
    const audit = (await t.http().get('/api/audit').set('Cookie', cookie)).body.data;
    expect(audit[0]).toMatchObject({ action: 'webhook.disabled', actor: null, webhook: 'failing', fields: [] });
    const log: { state: string }[] = await deliveries('failing', cookie);
    expect(log.map((d) => d.state)).toEqual(Array(4).fill('failed'));

    // While disabled: an event's delivery fails at once without an attempt, and no test or replay is taken.
    const requestsBefore = receiver.received.filter((r) => r.path === failing).length;
    expect((await sendEvent(organizationId)).status).toBe(202);
    const [newest] = await deliveries('failing', cookie);
    expect(newest).toMatchObject({ state: 'failed', attempts: 0, lastAttempt: null });
    expect((await t.http().post('/api/webhook/failing/test').set('Cookie', cookie)).body).toMatchObject({ code: 'disabled' });
    const replay = await t.http().post(`/api/webhook/failing/deliveries/${newest.id}/retry`).set('Cookie', cookie);
    expect({ status: replay.status, code: replay.body.code }).toEqual({ status: 409, code: 'disabled' });

    // Enabled again: read back without `disabled`, audited, and a replay reaches the (mended) receiver.
    receiver.on(failing, { status: 200 });
    const enabled = await t.http().post('/api/webhook/failing/enable').set('Cookie', cookie);
    expect({ status: enabled.status, body: enabled.body }).toEqual({ status: 200, body: { url: `https://${HOOKS}${failing}` } });
    expect((await t.http().get('/api/audit').set('Cookie', cookie)).body.data[0]).toMatchObject({
      action: 'webhook.enabled',
      actor: { user: expect.any(Number) },
    });
    expect(receiver.received.filter((r) => r.path === failing)).toHaveLength(requestsBefore);
    expect((await t.http().post(`/api/webhook/failing/deliveries/${newest.id}/retry`).set('Cookie', cookie)).status).toBe(202);
    expect((await receiver.waitFor(failing, requestsBefore + 1))[requestsBefore].headers['webhook-id']).toBe(newest.event.id);
  });

  it('limits test events per webhook: past the limit 429 with Retry-After, and nothing is stored', async () => {
    const p = newPath();
    const { cookie } = await h.organizationWith({ tested: { url: `https://${HOOKS}${p}` } });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.http().post('/api/webhook/tested/test').set('Cookie', cookie)).status);
    const refused = await t.http().post('/api/webhook/tested/test').set('Cookie', cookie);
    expect([...statuses, refused.status]).toEqual([202, 202, 202, 429]);
    expect(refused.body).toEqual({ code: 'rate limited' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const audit = (await t.http().get('/api/audit').set('Cookie', cookie)).body.data;
    expect(audit.filter((entry: { action: string }) => entry.action === 'webhook.tested')).toHaveLength(3);
    expect(await deliveries('tested', cookie)).toHaveLength(3);
    expect((await receiver.waitFor(p, 3)).map((request) => JSON.parse(request.body))).toEqual(
      Array(3).fill(expect.objectContaining({ type: 'webhook.test', data: { webhook: 'tested' } })),
    );
  });

  it('answers 429 queue full with Retry-After once an organization has DELIVERY_PENDING_PER_ORG_MAX pending deliveries, storing nothing', async () => {
    const { organizationId, cookie } = await h.organizationWith({
      one: { url: `https://${HOOKS}${newPath()}`, rateLimit: 1 },
      two: { url: `https://${HOOKS}${newPath()}`, rateLimit: 1 },
    });
    let accepted = 0;
    let refused;
    for (let i = 0; i < 15 && refused === undefined; i++) {
      const res = await sendEvent(organizationId, { i });
      if (res.status === 202) accepted++;
      else refused = res;
    }
    expect({ status: refused?.status, body: refused?.body, retryAfter: refused?.headers['retry-after'] }).toEqual({
      status: 429,
      body: { code: 'queue full' },
      retryAfter: '30',
    });
    const count = async (sql: string) => Number((await t.dataSource.query(sql, [organizationId]))[0].n);
    expect(accepted).toBeGreaterThanOrEqual(10);
    expect(await count('SELECT COUNT(*) AS n FROM events WHERE organization_id = ?')).toBe(accepted);
    expect(await count('SELECT COUNT(*) AS n FROM deliveries WHERE organization_id = ?')).toBe(accepted * 2);
    // Deleting one webhook cancels its deliveries: the queue has room again, once the count is redone (a second).
    expect((await t.http().delete('/api/webhook/one').set('Cookie', cookie)).status).toBe(200);
    // The deleted webhook's deliveries keep their rows, without it (webhook_id null).
    const rows = await t.dataSource.query(
      'SELECT state, COUNT(*) AS n FROM deliveries WHERE organization_id = ? AND webhook_id IS NULL GROUP BY state',
      [organizationId],
    );
    const byState = Object.fromEntries(rows.map((row: { state: string; n: unknown }) => [row.state, Number(row.n)]));
    // At 1 a second, one or two went out before the delete; the rest are cancelled, none left pending.
    expect(byState.pending).toBeUndefined();
    expect(byState.cancelled).toBeGreaterThan(0);
    expect(byState.cancelled + (byState.succeeded ?? 0)).toBe(accepted);
    await expect.poll(async () => (await sendEvent(organizationId)).status, { timeout: 5000, interval: 250 }).toBe(202);
  });

  it('fails an attempt whose signing secret no longer opens with internal error, on the schedule, never claimed for ever', async () => {
    const p = newPath();
    const { organizationId, cookie } = await h.organizationWith({
      sealed: { url: `https://${HOOKS}${p}` },
      donor: { url: `https://${HOOKS}${newPath()}` },
    });
    // A ciphertext copied from another row is bound to that row: it does not open here.
    const [donor] = await t.dataSource.query(
      "SELECT w.secret AS secret FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id WHERE s.organization_id = ? AND w.name = 'donor'",
      [organizationId],
    );
    await t.dataSource.query(
      "UPDATE webhooks SET secret = ? WHERE name = 'sealed' AND source_id = (SELECT id FROM webhook_sources WHERE organization_id = ?)",
      [donor.secret, organizationId],
    );
    expect((await sendEvent(organizationId)).status).toBe(202);
    await expect
      .poll(async () => (await deliveries('sealed', cookie)).find((d: { attempts: number }) => d.attempts >= 1), { timeout: 10_000 })
      .toMatchObject({ state: 'pending', lastAttempt: { status: null, error: 'internal error' }, nextAttemptAt: expect.any(String) });
    await expect
      .poll(async () => (await deliveries('sealed', cookie)).find((d: { state: string }) => d.state === 'failed'), { timeout: 10_000 })
      .toMatchObject({ attempts: 3 });
    expect(receiver.received.filter((r) => r.path === p)).toEqual([]);
  });

  // The receiver checks every request against the event catalogue, and fails the suite on close if one is off it.
  it("delivered the service's own types beside the platform's, each request as the event catalogue describes it (docs/api.md 10.11)", () => {
    expect([...receiver.eventTypes()].sort()).toEqual(['user.updated', 'webhook.disabled', 'webhook.test']);
  });
});

describeEachDatabase('the circuit breaker', (kind: DatabaseKind) => {
  it("holds a silent webhook's deliveries back after consecutive timeouts (no attempts), across a restart, then probes once per cool-down, and closes on success", async () => {
    const target = await startDeliveryTarget();
    const database = await createTestDatabase(kind);
    const secretKey = randomBytes(32).toString('base64');
    // One attempt at a time, so that the breaker's count is exact: the second timeout opens it.
    const env = {
      ...ENV,
      ...target.env,
      DELIVERY_POLL_MS: '100',
      DELIVERY_RETRY_SCHEDULE: '1,1',
      DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK: '1',
      DELIVERY_TIMEOUT_MS: '500',
    };
    const { receiver } = target;
    let t = await TestApp.start(kind, { database, secretKey, zone: HOOKS_ZONE, env });
    try {
      receiver.on('/silent', 'hang');
      const { organizationId, cookie } = await t.member('owner');
      expect(
        (
          await t
            .http()
            .post('/api/webhook/silent')
            .set('Cookie', cookie)
            .send({ url: `https://${HOOKS}/silent` })
        ).status,
      ).toBe(201);
      const { token } = await t.identity.createPlatformKey('platform');
      for (let i = 0; i < 4; i++) {
        expect(
          (
            await t
              .http()
              .post('/api/events')
              .set('Authorization', `Bearer ${token}`)
              .send({ type: 'user.updated', organization: organizationId, data: { i } })
          ).status,
        ).toBe(202);
      }
      const openUntil = async () => (await t.dataSource.query('SELECT breaker_open_until AS until FROM webhook_health'))[0]?.until ?? null;
      await expect.poll(openUntil, { timeout: 10_000 }).not.toBeNull();
      const cooledDownAt = dateOf(await openUntil()).getTime();
      expect(receiver.received).toHaveLength(2);
      const held = await t.dataSource.query("SELECT COUNT(*) AS n FROM deliveries WHERE state = 'pending' AND attempts = 0");
      expect(Number(held[0].n)).toBe(2);

      // Another instance on the same database knows the breaker: it holds back too, then probes once.
      await t.close();
      const restartedAt = Date.now();
      t = await TestApp.start(kind, { database, secretKey, zone: HOOKS_ZONE, env });
      await receiver.waitFor('/silent', 3, 10_000);
      const probeAt = receiver.received[2].at;
      expect(probeAt).toBeGreaterThanOrEqual(cooledDownAt);
      expect(probeAt).toBeGreaterThan(restartedAt);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(receiver.received).toHaveLength(3);

      // The receiver answers again: the next probe closes the breaker and everything goes out.
      receiver.on('/silent', { status: 204 });
      await expect
        .poll(async () => (await t.dataSource.query("SELECT COUNT(*) AS n FROM deliveries WHERE state = 'succeeded'"))[0].n, {
          timeout: 15_000,
        })
        .toSatisfy((n: unknown) => Number(n) === 4);
      expect(await openUntil()).toBeNull();
    } finally {
      await t.close();
      await database.drop();
      await target.close();
    }
  });
});
