import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnitOfWork } from '../../src/database/unit-of-work';
import { Outbox } from '../../src/delivery/events/outbox';
import { DISABLED_EVENT } from '../../src/event-types/event-types';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, newPath } from '../support/delivery-harness';
import { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * What a webhook takes and what it carries, at delivery: an event goes only to the webhooks
 * that take its type (docs/api.md 10.13), the 202 counting those; `webhook.test` to its webhook
 * whatever it takes, `webhook.disabled` only to the webhooks without `events`; and a webhook's
 * custom headers (10.15) arrive with every attempt and test ping, the signature still verifying,
 * their values in no log line and no answer.
 */

const VALUE = 'k3y-0f-the-receiver';

describeEachDatabase('subscriptions and custom headers at delivery', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind, { env: { DELIVERY_RETRY_SCHEDULE: '1' } });
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  const url = (path: string) => `https://${HOOKS}${path}`;

  describe('events', () => {
    it('sends an event only to the webhooks that take its type, and the 202 counts only those', async () => {
      const [cards, all, created, users] = [newPath(), newPath(), newPath(), newPath()];
      const { organizationId } = await h.organizationWith({
        cards: { url: url(cards), events: ['card.*'] },
        all: { url: url(all) },
        created: { url: url(created), events: ['user.updated', 'transaction.created'] },
        users: { url: url(users), events: ['user.*'], card: { updated: url(cards) } },
      });
      const send = async (type: string) => (await h.sendEvent({ type, organization: organizationId, data: {} })).body;
      expect((await send('transaction.created')).deliveries).toBe(2);
      expect((await send('card.updated')).deliveries).toBe(2);
      expect((await send('transaction.completed')).deliveries).toBe(1);
      expect((await send('user.updated')).deliveries).toBe(3);
      await Promise.all([receiver.waitFor(all, 4), receiver.waitFor(cards, 1), receiver.waitFor(created, 2), receiver.waitFor(users, 1)]);

      // no order between events is promised: compared sorted
      const typesAt = (path: string) =>
        receiver.received
          .filter((r) => r.path === path)
          .map((r) => JSON.parse(r.body).type)
          .sort();
      expect(typesAt(all)).toEqual(['card.updated', 'transaction.completed', 'transaction.created', 'user.updated']);
      // users' card.updated URL is set but unused: it does not take card events
      expect(typesAt(cards)).toEqual(['card.updated']);
      expect(typesAt(created)).toEqual(['transaction.created', 'user.updated']);
      expect(typesAt(users)).toEqual(['user.updated']);
    });

    it('answers 0 deliveries for an event no webhook takes, and stores none', async () => {
      const { organizationId } = await h.organizationWith({ cards: { url: url(newPath()), events: ['card.updated'] } });
      const res = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
      expect(res.status).toBe(202);
      expect(res.body.deliveries).toBe(0);
      expect(await h.deliveriesOf(res.body.id)).toEqual([]);
    });

    it('sends webhook.test to its webhook whatever it takes', async () => {
      const p = newPath();
      const { cookie } = await h.organizationWith({ tested: { url: url(p), events: ['transaction.completed'] } });
      expect((await t.http().post('/api/webhook/tested/test').set('Cookie', cookie)).status).toBe(202);
      const [request] = await receiver.waitFor(p, 1);
      expect(JSON.parse(request.body)).toMatchObject({ type: 'webhook.test', data: { webhook: 'tested' } });
    });

    it('sends webhook.disabled only to the other enabled webhooks that have no events', async () => {
      const { organizationId } = await h.organizationWith({
        gone: { url: url(newPath()) },
        plain: { url: url(newPath()) },
        subscribed: { url: url(newPath()), events: ['transaction.*', 'card.*', 'user.*'] },
      });
      const [gone] = await t.dataSource.query(
        'SELECT w.id AS id FROM webhooks w JOIN webhook_sources ws ON ws.id = w.source_id WHERE ws.organization_id = ? AND w.name = ?',
        [organizationId, 'gone'],
      );
      const accepted = await t.app.get(UnitOfWork).run((tx) =>
        t.app.get(Outbox).emit(tx, {
          type: DISABLED_EVENT,
          organization: organizationId,
          data: { webhook: 'gone' },
          onlyEnabledExcept: Number(gone.id),
        }),
      );
      expect(accepted.deliveries).toBe(1);
    });
  });

  describe('custom headers', () => {
    it('arrive with every attempt, retries included, beside the signed headers, and the signature still verifies', async () => {
      const p = newPath();
      receiver.on(p, { status: 500 });
      const { organizationId, secrets } = await h.organizationWith({
        headed: { url: url(p), headers: { 'X-Api-Key': VALUE, Authorization: `Bearer ${VALUE}` } },
      });
      const res = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { user: 1 } });
      const requests = await receiver.waitFor(p, 2);
      for (const request of requests) {
        expect(request.headers['x-api-key']).toBe(VALUE);
        expect(request.headers.authorization).toBe(`Bearer ${VALUE}`);
        expect(request.headers['webhook-id']).toBe(res.body.id);
        expect(new Webhook(secrets.headed).verify(request.body, request.headers)).toMatchObject({ type: 'user.updated' });
      }
      await h.settled(res.body.id);
      expect(t.logs.join('')).not.toContain(VALUE);
    });

    it('arrive with a test ping, and as a PATCH left them at the time of the attempt', async () => {
      const p = newPath();
      const { cookie } = await h.organizationWith({ pinged: { url: url(p), headers: { 'X-Api-Key': 'old', 'X-Gone': 'soon' } } });
      const patched = await t
        .http()
        .patch('/api/webhook/pinged')
        .set('Cookie', cookie)
        .send({ headers: { 'x-api-key': VALUE, 'X-Gone': null } });
      expect(patched.body.headers).toEqual({ 'x-api-key': '********' });
      expect((await t.http().post('/api/webhook/pinged/test').set('Cookie', cookie)).status).toBe(202);
      const [request] = await receiver.waitFor(p, 1);
      expect(request.headers['x-api-key']).toBe(VALUE);
      expect(request.headers).not.toHaveProperty('x-gone');
      const log = await t.http().get('/api/webhook/pinged/deliveries').set('Cookie', cookie);
      expect(JSON.stringify(log.body)).not.toContain(VALUE);
    });
  });
});
