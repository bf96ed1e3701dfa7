import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventIngest } from '../../src/delivery/events/event-ingest.service';
import type { DeliveryDto } from '../../src/delivery/log/dto/delivery-log.dto';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, newPath, PUBLIC_A } from '../support/delivery-harness';
import { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * The delivery log of docs/api.md 10.7 as the admin console reads it: pages newest first whose
 * cursor walks every delivery exactly once while new ones arrive, the state filter, the detail
 * with every attempt, and the same callers as the webhook operations.
 */

describeEachDatabase('delivery log', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    h = await DeliveryHarness.start(kind, { env: { DELIVERY_RETRY_SCHEDULE: '1' } });
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  /** An owner's organization with one webhook at a path of its own; events for it. */
  async function webhookWithEvents(count: number, behaviour?: Parameters<WebhookReceiver['on']>[1]) {
    const path = newPath();
    if (behaviour) receiver.on(path, behaviour);
    const owner = await t.member('owner');
    expect(
      (
        await t
          .http()
          .post('/api/webhook/logged')
          .set('Cookie', owner.cookie)
          .send({ url: `https://${HOOKS}${path}` })
      ).status,
    ).toBe(201);
    const ingest = t.app.get(EventIngest);
    const ids: string[] = [];
    for (let i = 0; i < count; i++)
      ids.push((await ingest.accept({ type: 'user.updated', organization: owner.organizationId, data: { i } })).id);
    return { ...owner, path, ids };
  }

  const log = (cookie: string, query = '') => t.http().get(`/api/webhook/logged/deliveries${query}`).set('Cookie', cookie);

  /** Polls until the log lists `count` deliveries, none of them pending; returns them. */
  async function settledLog(cookie: string, count: number) {
    let data: DeliveryDto[] = [];
    await expect
      .poll(
        async () => {
          data = (await log(cookie, '?limit=100')).body.data;
          return data.length === count && data.every((d) => d.state !== 'pending');
        },
        { timeout: 10_000, interval: 50 },
      )
      .toBe(true);
    return data;
  }

  it('lists deliveries newest first with their event and last attempt, and no answer body or address', async () => {
    const { cookie, ids } = await webhookWithEvents(2);
    const data = await settledLog(cookie, 2);
    expect(data.map((d: { event: { id: string } }) => d.event.id)).toEqual([...ids].reverse());
    expect(data[0]).toEqual({
      id: expect.any(Number),
      event: { id: ids[1], type: 'user.updated', createdAt: expect.stringMatching(/Z$/) },
      state: 'succeeded',
      attempts: 1,
      createdAt: expect.stringMatching(/Z$/),
      nextAttemptAt: null,
      lastAttempt: { at: expect.stringMatching(/Z$/), durationMs: expect.any(Number), status: 200, error: null },
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    expect(JSON.stringify(data)).not.toContain(PUBLIC_A);
  });

  it('walks every delivery exactly once, page by page, while new ones are created', async () => {
    const { cookie, organizationId, ids } = await webhookWithEvents(25);
    const seen: number[] = [];
    let next: string | null = null;
    let round = 0;
    do {
      const res = await log(cookie, `?limit=7${next ? `&cursor=${encodeURIComponent(next)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((d: { id: number }) => d.id));
      next = res.body.next;
      // a new event between pages: it is newer than every page still to come
      await t.app.get(EventIngest).accept({ type: 'user.updated', organization: organizationId, data: { round: round++ } });
    } while (next !== null);
    expect(seen).toHaveLength(ids.length);
    expect(new Set(seen).size).toBe(ids.length);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
  });

  it('filters by state', async () => {
    const { cookie } = await webhookWithEvents(2, { status: 500 });
    await settledLog(cookie, 2);
    expect((await log(cookie, '?state=failed')).body.data).toHaveLength(2);
    expect((await log(cookie, '?state=succeeded')).body.data).toEqual([]);
  });

  describe('filters: type, since, until (docs/api.md 10.7)', () => {
    /** A webhook with one delivery per type given, each created at the moment given beside it. */
    async function typedDeliveries(events: [type: 'transaction.created' | 'card.updated' | 'user.updated', createdAt: string][]) {
      const owner = await t.member('owner');
      expect(
        (
          await t
            .http()
            .post('/api/webhook/logged')
            .set('Cookie', owner.cookie)
            .send({ url: `https://${HOOKS}${newPath()}` })
        ).status,
      ).toBe(201);
      const ingest = t.app.get(EventIngest);
      const ids: number[] = [];
      for (const [type, createdAt] of events) {
        const { id } = await ingest.accept({ type, organization: owner.organizationId, data: {} });
        const [row] = await t.dataSource.query('SELECT id FROM deliveries WHERE event_id = ?', [id]);
        await t.dataSource.query('UPDATE deliveries SET created_at = ? WHERE id = ?', [
          createdAt.replace('T', ' ').replace('Z', ''),
          row.id,
        ]);
        ids.push(Number(row.id));
      }
      await settledLog(owner.cookie, events.length);
      return { ...owner, ids };
    }

    const idsOf = (res: { body: { data: DeliveryDto[] } }) => res.body.data.map((d) => d.id);

    it('lists the deliveries of one event type, newest first', async () => {
      const { cookie, ids } = await typedDeliveries([
        ['card.updated', '2026-01-10T00:00:00.000Z'],
        ['user.updated', '2026-01-10T00:00:01.000Z'],
        ['card.updated', '2026-01-10T00:00:02.000Z'],
      ]);
      const res = await log(cookie, '?type=card.updated');
      expect(res.status).toBe(200);
      expect(idsOf(res)).toEqual([ids[2], ids[0]]);
      expect(res.body.data.every((d: DeliveryDto) => d.event.type === 'card.updated')).toBe(true);
      expect(idsOf(await log(cookie, '?type=transaction.created'))).toEqual([]);
    });

    it('bounds the creation time: since inclusive, until exclusive, with Z or an offset', async () => {
      const { cookie, ids } = await typedDeliveries([
        ['user.updated', '2026-01-10T09:59:59.999Z'],
        ['user.updated', '2026-01-10T10:00:00.000Z'],
        ['user.updated', '2026-01-10T10:30:00.000Z'],
        ['user.updated', '2026-01-10T11:00:00.000Z'],
      ]);
      expect(idsOf(await log(cookie, '?since=2026-01-10T10:00:00Z'))).toEqual([ids[3], ids[2], ids[1]]);
      expect(idsOf(await log(cookie, '?until=2026-01-10T11:00:00Z'))).toEqual([ids[2], ids[1], ids[0]]);
      expect(idsOf(await log(cookie, `?since=${encodeURIComponent('2026-01-10T12:00:00+02:00')}&until=2026-01-10T10:30:00.001Z`))).toEqual([
        ids[2],
        ids[1],
      ]);
      // an unencoded + arrives as a space: still the offset it was
      expect(idsOf(await log(cookie, '?since=2026-01-10T12:00:00+02:00&until=2026-01-10T10:30:00.001Z'))).toEqual([ids[2], ids[1]]);
    });

    it('combines the filters, and keeps them in the cursor from page to page', async () => {
      const { cookie, ids } = await typedDeliveries([
        ['card.updated', '2026-01-09T00:00:00.000Z'],
        ['card.updated', '2026-01-10T00:00:00.000Z'],
        ['user.updated', '2026-01-10T00:00:01.000Z'],
        ['card.updated', '2026-01-10T00:00:02.000Z'],
        ['card.updated', '2026-01-10T00:00:03.000Z'],
        ['card.updated', '2026-01-11T00:00:00.000Z'],
      ]);
      const filter = '&state=succeeded&type=card.updated&since=2026-01-10T00:00:00Z&until=2026-01-11T00:00:00Z';
      const seen: number[] = [];
      let next: string | null = null;
      do {
        const res = await log(cookie, `?limit=1${filter}${next ? `&cursor=${encodeURIComponent(next)}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...idsOf(res));
        next = res.body.next;
      } while (next !== null);
      expect(seen).toEqual([ids[4], ids[3], ids[1]]);

      const { next: cursor } = (await log(cookie, `?limit=1${filter}`)).body;
      // the cursor alone, or with some of its filters, goes on with every filter it keeps
      expect(idsOf(await log(cookie, `?limit=5&cursor=${encodeURIComponent(cursor)}`))).toEqual([ids[3], ids[1]]);
      expect(idsOf(await log(cookie, `?limit=5&type=card.updated&cursor=${encodeURIComponent(cursor)}`))).toEqual([ids[3], ids[1]]);
      const other = await log(cookie, `?limit=1&type=user.updated&cursor=${encodeURIComponent(cursor)}`);
      expect({ status: other.status, body: other.body }).toEqual({
        status: 400,
        body: { code: 'bad request', message: ['cursor: belongs to another list or filter'] },
      });
    });

    it('pages deliveries created in the same millisecond by id', async () => {
      const same = '2026-01-10T00:00:00.000Z';
      const { cookie, ids } = await typedDeliveries([
        ['user.updated', same],
        ['user.updated', same],
        ['user.updated', same],
      ]);
      const first = await log(cookie, '?limit=2');
      const second = await log(cookie, `?limit=2&cursor=${encodeURIComponent(first.body.next)}`);
      expect([...idsOf(first), ...idsOf(second)]).toEqual([ids[2], ids[1], ids[0]]);
      expect(second.body.next).toBeNull();
    });

    it.each([
      ['an unknown type', '?type=card.created', 'type: must be one of'],
      ['a group wildcard as the type', '?type=card.*', 'type: must be one of'],
      ['a since that is not a moment', '?since=yesterday', 'since: must be an ISO 8601 date and time'],
      ['a local time', '?until=2026-01-10T10:00:00', 'until: must be an ISO 8601 date and time'],
      ['an until equal to since', '?since=2026-01-10T10:00:00Z&until=2026-01-10T10:00:00Z', 'until: must be after since'],
      ['an until before since', '?since=2026-01-10T10:00:00Z&until=2026-01-09T10:00:00Z', 'until: must be after since'],
      ['a repeated type', '?type=card.updated&type=user.updated', 'type: must be given once'],
    ])('answers %s 400 bad request, naming the parameter', async (_, query, message) => {
      const { cookie } = await webhookWithEvents(0);
      const res = await log(cookie, query);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ code: 'bad request', message: [expect.stringContaining(message)] });
    });
  });

  it('shows one delivery with its attempts, newest first, and their count', async () => {
    const { cookie } = await webhookWithEvents(1, { status: 503 });
    const [delivery] = await settledLog(cookie, 1);
    const res = await t.http().get(`/api/webhook/logged/deliveries/${delivery.id}`).set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: delivery.id, state: 'failed', attempts: 2, attemptCount: 2 });
    expect(res.body.attemptLog).toEqual([
      { at: expect.any(String), durationMs: expect.any(Number), status: 503, error: 'http 503' },
      { at: expect.any(String), durationMs: expect.any(Number), status: 503, error: 'http 503' },
    ]);
    expect(Date.parse(res.body.attemptLog[0].at)).toBeGreaterThanOrEqual(Date.parse(res.body.attemptLog[1].at));
  });

  /** Writes `count` attempts of the delivery directly (statuses 1000, 1001, … in order, an hour ago), and its count. */
  async function writtenAttempts(deliveryId: number, count: number): Promise<void> {
    const at = new Date(Date.now() - 3600_000).toISOString().replace('T', ' ').replace('Z', '');
    const rows = Array.from({ length: count }, (_, i) => [deliveryId, at, 1, 1000 + i, 'http 500']);
    await t.dataSource.query(
      `INSERT INTO delivery_attempts (delivery_id, at, duration_ms, status, error) VALUES ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      rows.flat(),
    );
    await t.dataSource.query('UPDATE deliveries SET attempts = ? WHERE id = ?', [count, deliveryId]);
  }

  it('shows the newest 100 attempts of a longer log, newest first, and attemptCount all it has had', async () => {
    const {
      cookie: own,
      ids: [eventId],
    } = await webhookWithEvents(1, { status: 503 });
    const [delivery] = await settledLog(own, 1);
    await t.dataSource.query('DELETE FROM delivery_attempts WHERE delivery_id = ?', [delivery.id]);
    await writtenAttempts(delivery.id, 150);
    const res = await t.http().get(`/api/webhook/logged/deliveries/${delivery.id}`).set('Cookie', own);
    expect({ event: res.body.event.id, attempts: res.body.attempts, attemptCount: res.body.attemptCount }).toEqual({
      event: eventId,
      attempts: 150,
      attemptCount: 150,
    });
    expect(res.body.attemptLog.map((attempt: { status: number }) => attempt.status)).toEqual(
      Array.from({ length: 100 }, (_, i) => 1149 - i),
    );
  });

  it('keeps at most 1 000 attempts of a delivery: the next one written deletes the oldest, and attemptCount still counts it', async () => {
    // 410: one attempt per replay, no retry after it
    const { cookie } = await webhookWithEvents(1, { status: 410 });
    const [delivery] = await settledLog(cookie, 1);
    await t.dataSource.query('DELETE FROM delivery_attempts WHERE delivery_id = ?', [delivery.id]);
    await writtenAttempts(delivery.id, 1000);
    expect((await t.http().post(`/api/webhook/logged/deliveries/${delivery.id}/retry`).set('Cookie', cookie)).status).toBe(202);
    const detail = async () => (await t.http().get(`/api/webhook/logged/deliveries/${delivery.id}`).set('Cookie', cookie)).body;
    await expect.poll(async () => (await detail()).attemptCount, { timeout: 10_000 }).toBe(1001);
    const statuses = (
      await t.dataSource.query('SELECT status FROM delivery_attempts WHERE delivery_id = ? ORDER BY id', [delivery.id])
    ).map((row: { status: number }) => Number(row.status));
    expect(statuses).toHaveLength(1000);
    expect(statuses[0]).toBe(1001);
    expect(statuses[999]).toBe(410);
    expect((await detail()).attemptLog[0]).toMatchObject({ status: 410 });
  });

  it.each([
    ['a limit of 0', '?limit=0'],
    ['a limit of 101', '?limit=101'],
    ['an unknown state', '?state=lost'],
    ['a cursor that is not one', '?cursor=abc'],
  ])('answers %s 400 bad request', async (_, query) => {
    const { cookie } = await webhookWithEvents(0);
    const res = await log(cookie, query);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'bad request' });
  });

  it('answers a cursor that is not one 400 before it looks for the webhook (docs/api.md 4: the query before the 404)', async () => {
    const owner = await t.member('owner');
    const res = await t.http().get('/api/webhook/no-such-hook/deliveries?cursor=abc').set('Cookie', owner.cookie);
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'bad request' });
  });

  it('answers a cursor changed by the client, or taken to another filter, 400 bad request', async () => {
    const { cookie } = await webhookWithEvents(3);
    await settledLog(cookie, 3);
    const { next } = (await log(cookie, '?limit=1')).body;
    const [body, mac] = next.split('.');
    const forged = `${Buffer.from(JSON.stringify(JSON.parse(Buffer.from(body, 'base64url').toString()).map((v: unknown, i: number) => (i === 1 ? 999999 : v)))).toString('base64url')}.${mac}`;
    expect((await log(cookie, `?limit=1&cursor=${forged}`)).status).toBe(400);
    expect((await log(cookie, `?limit=1&state=failed&cursor=${next}`)).status).toBe(400);
  });

  describe('replay and test', () => {
    const retry = (cookie: string, id: number | string) =>
      t.http().post(`/api/webhook/logged/deliveries/${id}/retry`).set('Cookie', cookie);

    it('sends a succeeded delivery again with the same webhook-id', async () => {
      const { cookie, path, ids } = await webhookWithEvents(1);
      const [delivery] = await settledLog(cookie, 1);
      const res = await retry(cookie, delivery.id);
      expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: { id: delivery.id, state: 'pending' } });
      const requests = await receiver.waitFor(path, 2);
      expect(requests.map((r) => r.headers['webhook-id'])).toEqual([ids[0], ids[0]]);
      expect((await settledLog(cookie, 1))[0]).toMatchObject({ state: 'succeeded', attempts: 2 });
    });

    it('starts the retry schedule again for a failed delivery', async () => {
      const { cookie, path } = await webhookWithEvents(1, { status: 500 });
      const [delivery] = await settledLog(cookie, 1);
      expect(delivery).toMatchObject({ state: 'failed', attempts: 2 });
      expect((await retry(cookie, delivery.id)).status).toBe(202);
      await receiver.waitFor(path, 4);
      expect((await settledLog(cookie, 1))[0]).toMatchObject({ state: 'failed', attempts: 4 });
    });

    it('answers a cancelled delivery 409 cancelled', async () => {
      const { cookie } = await webhookWithEvents(1);
      const [delivery] = await settledLog(cookie, 1);
      await t.dataSource.query("UPDATE deliveries SET state = 'cancelled' WHERE id = ?", [delivery.id]);
      const res = await retry(cookie, delivery.id);
      expect({ status: res.status, body: res.body }).toEqual({ status: 409, body: { code: 'cancelled' } });
    });

    it('answers a delivery of another webhook, or of no webhook, 404 not found', async () => {
      const mine = await webhookWithEvents(0);
      const theirs = await webhookWithEvents(1);
      const [delivery] = await settledLog(theirs.cookie, 1);
      expect((await retry(mine.cookie, delivery.id)).status).toBe(404);
      expect((await retry(mine.cookie, 'x')).status).toBe(404);
    });

    it('sends a webhook.test event to url, through the queue, into the log', async () => {
      const { cookie, path } = await webhookWithEvents(0);
      const res = await t.http().post('/api/webhook/logged/test').set('Cookie', cookie);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 202,
        body: { id: expect.any(Number), event: { id: expect.stringMatching(/^evt_/), type: 'webhook.test' } },
      });
      const [request] = await receiver.waitFor(path, 1);
      expect(request.headers['webhook-id']).toBe(res.body.event.id);
      expect(JSON.parse(request.body)).toMatchObject({ type: 'webhook.test', data: { webhook: 'logged' } });
      expect((await settledLog(cookie, 1))[0]).toMatchObject({ id: res.body.id, event: { type: 'webhook.test' }, state: 'succeeded' });
    });

    it('answers a member 403 no permission for a replay and a test', async () => {
      const { organizationId } = await webhookWithEvents(0);
      const member = await t.member('member', organizationId);
      expect((await t.http().post('/api/webhook/logged/test').set('Cookie', member.cookie)).status).toBe(403);
      expect((await retry(member.cookie, 1)).status).toBe(403);
    });
  });

  describe('callers', () => {
    it("answers another organization's session 404 for the same webhook name", async () => {
      await webhookWithEvents(1);
      const other = await webhookWithEvents(0);
      const stranger = await t.member('owner');
      expect((await log(stranger.cookie)).status).toBe(404);
      expect((await log(other.cookie)).body.data).toEqual([]);
    });

    it('answers a member 403 no permission', async () => {
      const { organizationId } = await webhookWithEvents(1);
      const member = await t.member('member', organizationId);
      const res = await log(member.cookie);
      expect({ status: res.status, body: res.body }).toEqual({ status: 403, body: { code: 'no permission' } });
    });

    it('answers an unknown or malformed delivery id 404 not found', async () => {
      const { cookie } = await webhookWithEvents(0);
      for (const id of ['999999', 'abc', '0'])
        expect((await t.http().get(`/api/webhook/logged/deliveries/${id}`).set('Cookie', cookie)).status).toBe(404);
    });
  });
});
