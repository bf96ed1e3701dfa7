import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqlTimestamp } from '../../src/database/sql-dialect';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, newPath } from '../support/delivery-harness';
import type { TestApp } from '../support/test-app';

/*
 * Many events in one request (docs/api.md 10.1.1), end to end on each database: every event of a
 * batch delivered as a single event is, signed, its deliveries made in the order sent; every
 * check answering for the whole batch, naming the events it concerns, with nothing written; a
 * repeat answered as first answered; and a key shared by two batches, or by a batch and a single
 * event, racing (on two instances on MariaDB; SQLite serves one), creating one event that both
 * answer with.
 */

/** docs/api.md 10.10: small enough that one test can fill an organization's queue. */
const PENDING_MAX = 20;
const MIB = 1024 * 1024;
const TYPE_RULE = 'type: must be one of transaction.created, transaction.updated, transaction.completed, card.updated, user.updated';

describeEachDatabase('POST /events/batch', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  /** Another instance on the same database (MariaDB), or the same one (SQLite). */
  let other: TestApp;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind, { env: { DELIVERY_PENDING_PER_ORG_MAX: String(PENDING_MAX) } });
    t = h.app;
    other = kind === 'mariadb' ? await t.another({ env: { DELIVERY_CONCURRENCY: '0' } }) : t;
  });
  afterAll(async () => {
    if (other !== t) await other?.close();
    await h?.close();
  });

  const url = (path: string) => `https://${HOOKS}${path}`;
  const event = (organization: number, data: object = {}, idempotencyKey?: string) => ({
    type: 'user.updated',
    organization,
    data,
    ...(idempotencyKey !== undefined && { idempotencyKey }),
  });
  const eventCount = async (organizationId: number): Promise<number> =>
    Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM events WHERE organization_id = ?', [organizationId]))[0].n);
  const organization = async (): Promise<number> => (await t.member('owner')).organizationId;

  it('delivers each event to the webhooks that take its type, signed, its deliveries made in the order sent', async () => {
    const [all, cards, off, b] = [newPath(), newPath(), newPath(), newPath()];
    const first = await h.organizationWith({
      all: { url: url(all) },
      cards: { url: url(cards), events: ['card.*'] },
      off: { url: url(off) },
    });
    const second = await h.organizationWith({ b: { url: url(b) } });
    await t.dataSource.query(
      "UPDATE webhooks SET disabled_at = ? WHERE name = 'off' AND source_id = (SELECT id FROM webhook_sources WHERE organization_id = ?)",
      [sqlTimestamp(new Date()), first.organizationId],
    );
    const sent = [
      { type: 'transaction.created', organization: first.organizationId, data: { n: 0 } },
      { type: 'user.updated', organization: second.organizationId, data: { n: 1 } },
      { type: 'card.updated', organization: first.organizationId, data: { n: 2 } },
      { type: 'user.updated', organization: first.organizationId, data: { n: 3 } },
    ];
    const res = await h.sendBatch({ events: sent });
    expect(res.status).toBe(202);
    expect(res.body.events.map(({ deliveries }: { deliveries: number }) => deliveries)).toEqual([2, 1, 3, 2]);
    const ids: string[] = res.body.events.map(({ id }: { id: string }) => id);
    expect(new Set(ids).size).toBe(4);

    const arrived = [...(await h.receiver.waitFor(all, 3)), ...(await h.receiver.waitFor(cards, 1)), ...(await h.receiver.waitFor(b, 1))];
    for (const request of arrived) {
      const secret = request.path === b ? second.secrets.b : request.path === cards ? first.secrets.cards : first.secrets.all;
      const { data } = new Webhook(secret).verify(request.body, request.headers) as { data: { n: number } };
      expect(request.headers['webhook-id']).toBe(ids[data.n]);
    }
    // The disabled webhook's deliveries are failed at once, as for a single event.
    expect((await h.settled(ids[3])).map(({ state }) => state).sort()).toEqual(['failed', 'succeeded']);
    const made = await t.dataSource.query(`SELECT event_id AS eventId FROM deliveries WHERE event_id IN (?, ?, ?, ?) ORDER BY id`, ids);
    const order = made.map(({ eventId }: { eventId: string }) => ids.indexOf(eventId));
    expect(order).toEqual([...order].sort((x: number, y: number) => x - y));
  });

  it('answers a bad event at index 57 with 400 naming it, and writes none of the others', async () => {
    const org = await organization();
    const events = Array.from({ length: 60 }, (_, i) => event(org, { i }));
    events[57] = { ...events[57], type: 'card.deleted' };
    expect(await h.sendBatch({ events })).toMatchObject({
      status: 400,
      body: { code: 'bad request', message: [`events[57].${TYPE_RULE}`] },
    });
    expect(await eventCount(org)).toBe(0);
  });

  it('answers a key used twice for one organization with 400, and takes it for two organizations', async () => {
    const [a, b] = [await organization(), await organization()];
    expect(await h.sendBatch({ events: [event(a, {}, 'k'), event(b, {}, 'k'), event(a, { v: 2 }, 'k')] })).toMatchObject({
      status: 400,
      body: { code: 'bad request', message: ['events[2].idempotencyKey: used by events[0] too, for the same organization'] },
    });
    expect((await h.sendBatch({ events: [event(a, {}, 'k'), event(b, {}, 'k')] })).status).toBe(202);
  });

  it("answers an event for an organization outside a scoped key's with 403 naming it, before an unknown organization's 404", async () => {
    const [mine, others] = [await organization(), await organization()];
    const { token } = await t.identity.createPlatformKey('scoped', { organizations: [mine] });
    const res = await t
      .http()
      .post('/api/events/batch')
      .set('Authorization', `Bearer ${token}`)
      .send({ events: [event(mine), event(99_999_999), event(others)] });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 403,
      body: {
        code: 'forbidden',
        message: [
          "events[1].organization: not one of the platform key's organizations",
          "events[2].organization: not one of the platform key's organizations",
        ],
      },
    });
    expect(await eventCount(mine)).toBe(0);
  });

  it('answers an unknown organization with 404 naming its event, and writes nothing', async () => {
    const org = await organization();
    expect(await h.sendBatch({ events: [event(org), event(99_999_999), event(org)] })).toMatchObject({
      status: 404,
      body: { code: 'not found', message: ['events[1].organization: no organization 99999999'] },
    });
    expect(await eventCount(org)).toBe(0);
  });

  it('answers a repeated batch as first answered and creates nothing; its keys are those of POST /events too', async () => {
    const org = await organization();
    const events = [event(org, { n: 1 }, 'r-1'), event(org, { n: 2 }, 'r-2')];
    const first = await h.sendBatch({ events });
    expect(first.status).toBe(202);
    expect((await h.sendBatch({ events })).body).toEqual(first.body);
    const single = await h.sendEvent({ type: 'user.updated', organization: org, data: { n: 2 } }, { 'Idempotency-Key': 'r-2' });
    expect(single.body).toEqual(first.body.events[1]);
    expect(await eventCount(org)).toBe(2);
    expect(await h.sendBatch({ events: [event(org, { n: 3 }, 'r-1')] })).toMatchObject({
      status: 409,
      body: { code: 'idempotency conflict', message: ['events[0].idempotencyKey: used before with another event'] },
    });
  });

  it('creates one event for a key that two batches on two instances, and a single event, race for; all answer with it', async () => {
    const org = await organization();
    const [x, y] = [event(org, { v: 'x' }, 'race-x'), event(org, { v: 'y' }, 'race-y')];
    const answers = await Promise.all([
      h.sendBatch({ events: [x, y, event(org, { v: 1 })] }),
      h.sendBatch({ events: [y, x, event(org, { v: 2 })] }, other),
      h.sendEvent({ type: 'user.updated', organization: org, data: { v: 'x' } }, { 'Idempotency-Key': 'race-x' }),
    ]);
    expect(answers.map(({ status }) => status)).toEqual([202, 202, 202]);
    const [first, second, single] = answers.map(({ body }) => body);
    expect(second.events[0]).toEqual(first.events[1]);
    expect(second.events[1]).toEqual(first.events[0]);
    expect(single).toEqual(first.events[0]);
    expect(await eventCount(org)).toBe(4);
  });

  it('answers 413 to a body of 1 MiB + 1 byte, and takes one of 1 MiB', async () => {
    const org = await organization();
    /** A batch of four events of the same size, exactly `bytes` long as JSON. */
    const batchOf = (bytes: number) => {
      const empty = JSON.stringify({ events: Array.from({ length: 4 }, () => event(org, { blob: '' })) }).length;
      const fill = bytes - empty;
      return JSON.stringify({
        events: Array.from({ length: 4 }, (_, i) => event(org, { blob: 'x'.repeat(Math.floor(fill / 4) + (i < fill % 4 ? 1 : 0)) })),
      });
    };
    const send = (body: string) =>
      t.http().post('/api/events/batch').set('Authorization', `Bearer ${h.platformKey}`).set('Content-Type', 'application/json').send(body);
    expect(await send(batchOf(MIB + 1))).toMatchObject({ status: 413, body: { code: 'payload too large' } });
    expect(await eventCount(org)).toBe(0);
    expect((await send(batchOf(MIB))).status).toBe(202);
    expect(await eventCount(org)).toBe(4);
  });

  it('answers 101 events with 400, and an event over 256 KiB with 413 naming it', async () => {
    const org = await organization();
    expect(await h.sendBatch({ events: Array.from({ length: 101 }, () => event(org)) })).toMatchObject({
      status: 400,
      body: { code: 'bad request', message: ['events: must be a list of 1 to 100 events'] },
    });
    const large = event(org, { blob: 'x'.repeat(256 * 1024) });
    expect(await h.sendBatch({ events: [event(org), large] })).toMatchObject({
      status: 413,
      body: { code: 'payload too large', message: ['events[1]: must be at most 256 KiB of JSON'] },
    });
    expect(await eventCount(org)).toBe(0);
  });

  it("answers 429 queue full when the batch's deliveries would take one of its organizations over the limit, and writes nothing", async () => {
    const [slow, fine] = [newPath(), newPath()];
    // A rate limit of 1 a second keeps the first organization's deliveries pending.
    const full = await h.organizationWith({ slow: { url: url(slow), rateLimit: 1 } });
    const spare = await h.organizationWith({ fine: { url: url(fine) } });
    const filling = Array.from({ length: PENDING_MAX }, (_, i) => event(full.organizationId, { i }));
    expect((await h.sendBatch({ events: filling })).status).toBe(202);
    const res = await h.sendBatch({
      events: [event(spare.organizationId), event(full.organizationId), event(full.organizationId), event(full.organizationId)],
    });
    expect({ status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }).toEqual({
      status: 429,
      body: {
        code: 'queue full',
        message: [1, 2, 3].map((i) => `events[${i}].organization: ${full.organizationId} would have too many pending deliveries`),
      },
      retryAfter: '30',
    });
    expect(await eventCount(spare.organizationId)).toBe(0);
    expect(await eventCount(full.organizationId)).toBe(PENDING_MAX);
  });
});
