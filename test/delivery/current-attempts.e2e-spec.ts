import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebhookDisablingService } from '../../src/delivery/dispatch/webhook-disabling.service';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, newPath, TestOrganization } from '../support/delivery-harness';
import type { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * What an attempt uses is current (docs/api.md 10.10): a delivery claimed before a change of its
 * webhook is sent as the webhook is when its attempt starts. One attempt in flight per webhook
 * (DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK=1) to a receiver that answers after SLOW_MS: the first
 * event's attempt is in flight, the second event's delivery is claimed (handed over by ingest)
 * and waits for it while the webhook changes.
 */

const SLOW_MS = 800;
const ENV = { DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK: '1', DELIVERY_TIMEOUT_MS: '3000' };

describeEachDatabase('an attempt uses its webhook as it is when the attempt starts', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind, { env: ENV });
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  /** A webhook with one attempt in flight to a slow receiver and a second event's delivery claimed behind it. */
  async function oneWaitingBehindOneInFlight(): Promise<{ org: TestOrganization; slow: string; first: string; second: string }> {
    const slow = newPath();
    receiver.on(slow, { status: 200, delayMs: SLOW_MS });
    const org = await h.organizationWith({ held: { url: `https://${HOOKS}${slow}` } });
    const first = await h.sendEvent({ type: 'user.updated', organization: org.organizationId, data: { n: 1 } });
    await receiver.waitFor(slow, 1);
    const second = await h.sendEvent({ type: 'user.updated', organization: org.organizationId, data: { n: 2 } });
    expect([first.status, second.status]).toEqual([202, 202]);
    return { org, slow, first: first.body.id, second: second.body.id };
  }

  const requestsTo = (path: string) => receiver.received.filter((request) => request.path === path);
  const webhookIdOf = async (organizationId: number): Promise<number> =>
    Number(
      (
        await t.dataSource.query(
          'SELECT w.id AS id FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id WHERE s.organization_id = ?',
          [organizationId],
        )
      )[0].id,
    );

  it('sends a delivery claimed before a PATCH to the new URL', async () => {
    const { org, slow, second } = await oneWaitingBehindOneInFlight();
    const fixed = newPath();
    expect(
      (
        await t
          .http()
          .patch('/api/webhook/held')
          .set('Cookie', org.cookie)
          .send({ url: `https://${HOOKS}${fixed}` })
      ).status,
    ).toBe(200);
    const [arrived] = await receiver.waitFor(fixed, 1);
    expect(arrived.headers['webhook-id']).toBe(second);
    expect(requestsTo(slow)).toHaveLength(1);
  });

  it('signs a delivery claimed before a rotation with graceSeconds 0 with the new secret only', async () => {
    const { org, slow, second } = await oneWaitingBehindOneInFlight();
    const rotated = await t.http().post('/api/webhook/held/secret/rotate').set('Cookie', org.cookie).send({ graceSeconds: 0 });
    expect(rotated.status).toBe(200);
    const [, arrived] = await receiver.waitFor(slow, 2);
    expect(arrived.headers['webhook-id']).toBe(second);
    expect(arrived.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(rotated.body.secret).verify(arrived.body, arrived.headers)).not.toThrow();
    expect(() => new Webhook(org.secrets.held).verify(arrived.body, arrived.headers)).toThrow();
  });

  it('cancels a delivery claimed before its webhook was deleted, and never sends it', async () => {
    const { org, slow, second } = await oneWaitingBehindOneInFlight();
    expect((await t.http().delete('/api/webhook/held').set('Cookie', org.cookie)).status).toBe(200);
    expect((await h.settled(second)).map((row) => [row.state, row.attempts])).toEqual([['cancelled', 0]]);
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    expect(requestsTo(slow)).toHaveLength(1);
  });

  it('records the attempt in flight when its webhook is disabled, and fails the one claimed behind it without sending it', async () => {
    const { org, slow, first, second } = await oneWaitingBehindOneInFlight();
    await t.app.get(WebhookDisablingService).disable(await webhookIdOf(org.organizationId), new Date());
    expect((await h.settled(first)).map((row) => [row.state, row.attempts])).toEqual([['succeeded', 1]]);
    expect((await h.settled(second)).map((row) => [row.state, row.attempts])).toEqual([['failed', 0]]);
    const log = await t.http().get('/api/webhook/held/deliveries').set('Cookie', org.cookie);
    const inFlight = log.body.data.find((delivery: { event: { id: string } }) => delivery.event.id === first);
    expect(inFlight.lastAttempt).toMatchObject({ status: 200, error: null });
    await new Promise((resolve) => setTimeout(resolve, SLOW_MS));
    expect(requestsTo(slow)).toHaveLength(1);
  });

  it('leaves no pending delivery on a webhook whose disabling races test events and replays', async () => {
    const path = newPath();
    const org = await h.organizationWith({ raced: { url: `https://${HOOKS}${path}` } });
    const webhookId = await webhookIdOf(org.organizationId);
    const sent = await h.sendEvent({ type: 'user.updated', organization: org.organizationId, data: {} });
    await h.settled(sent.body.id);
    const [{ id: deliveryId }] = await t.dataSource.query('SELECT id FROM deliveries WHERE event_id = ?', [sent.body.id]);
    for (let round = 0; round < 3; round++) {
      expect((await t.http().post('/api/webhook/raced/enable').set('Cookie', org.cookie)).status).toBe(200);
      const answers = await Promise.all([
        t.http().post('/api/webhook/raced/test').set('Cookie', org.cookie),
        t.http().post(`/api/webhook/raced/deliveries/${deliveryId}/retry`).set('Cookie', org.cookie),
        t.app.get(WebhookDisablingService).disable(webhookId, new Date()),
      ]);
      expect([202, 409]).toContain(answers[0].status);
      expect([202, 409]).toContain(answers[1].status);
      await expect
        .poll(
          async () =>
            Number(
              (await t.dataSource.query("SELECT COUNT(*) AS n FROM deliveries WHERE webhook_id = ? AND state = 'pending'", [webhookId]))[0]
                .n,
            ),
          {
            timeout: 5000,
            interval: 50,
          },
        )
        .toBe(0);
    }
  });
});
