import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqlTimestamp } from '../../src/database/sql-dialect';
import { CLAIM_TRANSACTION, ClaimedDelivery, DeliveryQueue } from '../../src/delivery/dispatch/delivery-queue';
import { AttemptRecord, DeliveryTransitions } from '../../src/delivery/dispatch/delivery-transitions';
import { DispatchWork } from '../../src/delivery/dispatch/dispatch-database';
import type { ClaimAsk } from '../../src/delivery/dispatch/scheduling/dispatch-scheduler';
import { WebhookDisablingService } from '../../src/delivery/dispatch/webhook-disabling.service';
import { EventIngest } from '../../src/delivery/events/event-ingest.service';
import { DatabaseKind, describeEachDatabase, describeOnMariadb } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * The queue's scan, claims and leases (docs/api.md 10.5, 10.6, 10.10), on the real databases:
 * claims by several instances at once never overlap, a lease that runs out makes a delivery due
 * again, the claimer whose lease ran out can no longer record its attempt, a rate limit's slots
 * and a breaker's probe are shared by every claimer. Dispatchers are off
 * (DELIVERY_CONCURRENCY=0): the tests claim by hand, each "instance" with a token of its own.
 */

const ZONE = { 'hooks.example.com': { A: ['93.184.215.14'] } };
const OFF = { DELIVERY_CONCURRENCY: '0' };
const LEASE_MS = 60_000;
const token = () => randomBytes(12).toString('base64url');

/** A new organization with one webhook and `count` events for it: the webhook's id. */
async function withPendingDeliveries(t: TestApp, count: number, body: object = {}): Promise<number> {
  const { organizationId, cookie } = await t.member('owner');
  expect(
    (
      await t
        .http()
        .post('/api/webhook/queued')
        .set('Cookie', cookie)
        .send({ url: 'https://hooks.example.com/q', ...body })
    ).status,
  ).toBe(201);
  const ingest = t.app.get(EventIngest);
  for (let i = 0; i < count; i++) await ingest.accept({ type: 'user.updated', organization: organizationId, data: { i } });
  const [{ id }] = await t.dataSource.query(
    'SELECT w.id AS id FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id WHERE s.organization_id = ?',
    [organizationId],
  );
  return Number(id);
}

const record = (at: Date): AttemptRecord => ({ state: 'succeeded', nextAttemptAt: null, at, durationMs: 5, status: 200, error: null });

/** Claims up to `fresh` first attempts (and `retries` retries) of a webhook, taking every candidate, in a transaction as the dispatcher's. */
const claim = (t: TestApp, ask: Partial<ClaimAsk> & { webhookId: number }, now: number, claimer: string) =>
  t.app
    .get(DispatchWork)
    .run(
      (tx) => t.app.get(DeliveryQueue).claim(tx, [{ fresh: 0, retries: 0, ...ask }], now, LEASE_MS, claimer, (candidates) => candidates),
      CLAIM_TRANSACTION,
    );

/** Records outcomes for claimed deliveries: the ids recorded. */
async function complete(t: TestApp, outcomes: { delivery: ClaimedDelivery; record: AttemptRecord }[], claimer: string) {
  const completions = outcomes.map(({ delivery, record }) => ({ id: delivery.id, webhookId: delivery.webhookId, record }));
  return (await t.app.get(DispatchWork).run((tx) => t.app.get(DeliveryTransitions).record(tx, completions, claimer))).recorded;
}

describeOnMariadb('claims on one database from several instances', () => {
  let instances: TestApp[];
  let webhookId: number;
  beforeAll(async () => {
    const first = await TestApp.start('mariadb', { zone: ZONE, env: OFF });
    instances = [first, await first.another({ zone: ZONE, env: OFF }), await first.another({ zone: ZONE, env: OFF })];
    webhookId = await withPendingDeliveries(first, 300);
  });
  afterAll(async () => {
    for (const t of [...(instances ?? [])].reverse()) await t.close();
  });

  it('never hand one delivery to two claimers, and leave none unclaimed (SKIP LOCKED)', async () => {
    const now = Date.now() + 1000;
    const round = () =>
      Promise.all(instances.flatMap((t) => Array.from({ length: 4 }, () => claim(t, { webhookId, fresh: 30 }, now, token()))));
    const ids = [...(await round()), ...(await round())].flat().map((d) => d.id);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
  });
});

describeEachDatabase('the queue', (kind: DatabaseKind) => {
  let t: TestApp;
  let queue: DeliveryQueue;
  let transitions: DeliveryTransitions;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: ZONE, env: OFF });
    queue = t.app.get(DeliveryQueue);
    transitions = t.app.get(DeliveryTransitions);
  });
  afterAll(() => t?.close());

  it('makes a claimed delivery due again once its lease has run out, for a new claimer whose outcome alone counts', async () => {
    const webhookId = await withPendingDeliveries(t, 1);
    const now = Date.now() + 1000;
    const [first, second] = [token(), token()];
    const [claimed] = await claim(t, { webhookId, fresh: 10 }, now, first);
    expect(claimed).toBeDefined();
    expect(await claim(t, { webhookId, fresh: 10 }, now + LEASE_MS - 1, second)).toEqual([]);
    const [again] = await claim(t, { webhookId, fresh: 10 }, now + LEASE_MS + 1, second);
    expect(again.id).toBe(claimed.id);
    expect(await complete(t, [{ delivery: claimed, record: record(new Date(now)) }], first)).toEqual(new Set());
    expect(await complete(t, [{ delivery: again, record: record(new Date(now)) }], second)).toEqual(new Set([again.id]));
    const [row] = await t.dataSource.query('SELECT state, attempts FROM deliveries WHERE id = ?', [claimed.id]);
    expect({ state: row.state, attempts: Number(row.attempts) }).toEqual({ state: 'succeeded', attempts: 1 });
  });

  it('records a batch of outcomes in one go, each with its own state and attempt', async () => {
    const webhookId = await withPendingDeliveries(t, 3);
    const mine = token();
    const now = Date.now() + 1000;
    const claimed = (await claim(t, { webhookId, fresh: 3 }, now, mine)).sort((a, b) => a.id - b.id);
    const failed: AttemptRecord = {
      state: 'pending',
      nextAttemptAt: new Date(now + 5000),
      at: new Date(now),
      durationMs: 7,
      status: 503,
      error: 'http 503',
    };
    await complete(
      t,
      claimed.map((delivery, i) => ({ delivery, record: i === 0 ? failed : record(new Date(now)) })),
      mine,
    );
    const rows = await t.dataSource.query(
      `SELECT d.state AS state, d.last_status AS status, COUNT(a.id) AS attempts FROM deliveries d JOIN delivery_attempts a ON a.delivery_id = d.id
        WHERE d.webhook_id = ? GROUP BY d.id, d.state, d.last_status ORDER BY d.id`,
      [webhookId],
    );
    expect(rows.map((r: Record<string, unknown>) => [r.state, Number(r.status), Number(r.attempts)])).toEqual([
      ['pending', 503, 1],
      ['succeeded', 200, 1],
      ['succeeded', 200, 1],
    ]);
  });

  it('finds a webhook with a due delivery in its scan, and not one whose deliveries are due later', async () => {
    const due = await withPendingDeliveries(t, 1);
    const later = await withPendingDeliveries(t, 1);
    await t.dataSource.query("UPDATE deliveries SET next_attempt_at = '2999-01-01 00:00:00.000' WHERE webhook_id = ?", [later]);
    const found = (await queue.scan(Date.now() + 1000)).due.map((webhook) => webhook.webhookId);
    expect(found).toContain(due);
    expect(found).not.toContain(later);
  });

  it('gives released claims back, due at once', async () => {
    const webhookId = await withPendingDeliveries(t, 2);
    const now = Date.now() + 1000;
    const mine = token();
    const claimed = await claim(t, { webhookId, fresh: 10 }, now, mine);
    await transitions.release(
      claimed.map(({ id }) => id),
      mine,
      now,
    );
    expect((await claim(t, { webhookId, fresh: 10 }, now, token())).map((d) => d.id).sort()).toEqual(claimed.map((d) => d.id).sort());
  });

  it('fails, rather than gives back, the claims of a webhook disabled while they were held', async () => {
    const webhookId = await withPendingDeliveries(t, 2);
    const now = Date.now() + 1000;
    const mine = token();
    const claimed = await claim(t, { webhookId, fresh: 10 }, now, mine);
    await t.app.get(WebhookDisablingService).disable(webhookId, new Date());
    await transitions.release(
      claimed.map(({ id }) => id),
      mine,
      now,
    );
    const rows = await t.dataSource.query(
      'SELECT state, next_attempt_at AS due, claim_token AS token, last_attempt_at AS tried FROM deliveries WHERE webhook_id = ?',
      [webhookId],
    );
    expect(rows).toEqual(claimed.map(() => ({ state: 'failed', due: null, token: null, tried: null })));
  });

  it('finds in its scan a disabled webhook whose claims ran out, and fails those deliveries', async () => {
    const webhookId = await withPendingDeliveries(t, 2);
    const now = Date.now() + 1000;
    await claim(t, { webhookId, fresh: 10 }, now, token());
    await t.app.get(WebhookDisablingService).disable(webhookId, new Date());
    const later = now + LEASE_MS + 1;
    const { due, disabled } = await queue.scan(later);
    expect(due.map((webhook) => webhook.webhookId)).not.toContain(webhookId);
    expect(disabled).toContain(webhookId);
    await transitions.failLeftPending([webhookId], later);
    const rows = await t.dataSource.query('SELECT state, claim_token AS token FROM deliveries WHERE webhook_id = ?', [webhookId]);
    expect(rows).toEqual([
      { state: 'failed', token: null },
      { state: 'failed', token: null },
    ]);
  });

  it('shares a rate limit between claimers: each delivery gets its own slot, 1/rate seconds apart', async () => {
    const webhookId = await withPendingDeliveries(t, 6, { rateLimit: 10 });
    const now = Date.now() + 1000;
    const first = await claim(t, { webhookId, fresh: 6, rateLimit: 10 }, now, token());
    const second = await claim(t, { webhookId, fresh: 6, rateLimit: 10 }, now + 250, token());
    const slots = [...first, ...second].map((d) => d.notBefore! - now);
    expect(slots).toEqual([0, 100, 200, 300, 400]);
  });

  it("reads the queue for the metrics: its depth, the oldest due delivery but those a breaker holds back, and enabled webhooks' open breakers", async () => {
    const now = Date.now() + 1000;
    const before = await queue.stats(now);
    const webhookId = await withPendingDeliveries(t, 2);
    const longAgo = Date.parse('2001-01-01T00:00:00Z');
    await t.dataSource.query('UPDATE deliveries SET next_attempt_at = ? WHERE webhook_id = ?', [
      sqlTimestamp(new Date(longAgo)),
      webhookId,
    ]);
    expect(await queue.stats(now)).toEqual({ pending: before.pending + 2, oldestDueAt: longAgo, breakersOpen: before.breakersOpen });
    await t.dataSource.query('INSERT INTO webhook_health (webhook_id, breaker_failures, breaker_open_until) VALUES (?, 5, ?)', [
      webhookId,
      sqlTimestamp(new Date(now + 60_000)),
    ]);
    expect(await queue.stats(now)).toEqual({
      pending: before.pending + 2,
      oldestDueAt: before.oldestDueAt,
      breakersOpen: before.breakersOpen + 1,
    });
    await t.dataSource.query('UPDATE webhooks SET disabled_at = ? WHERE id = ?', [sqlTimestamp(new Date(now)), webhookId]);
    expect((await queue.stats(now)).breakersOpen).toBe(before.breakersOpen);
  });

  it('lets one claimer only make the probe of an open breaker whose cool-down is over', async () => {
    const webhookId = await withPendingDeliveries(t, 3);
    const now = Date.now() + 1000;
    await t.dataSource.query('INSERT INTO webhook_health (webhook_id, breaker_failures, breaker_open_until) VALUES (?, 5, ?)', [
      webhookId,
      new Date(now - 1).toISOString().replace('T', ' ').replace('Z', ''),
    ]);
    const probes = await Promise.all([token(), token()].map((claimer) => claim(t, { webhookId, fresh: 1, probe: true }, now, claimer)));
    expect(probes.flat()).toHaveLength(1);
  });

  it('claims a webhook first attempts before its retries, whatever their age', async () => {
    const webhookId = await withPendingDeliveries(t, 4);
    const retried = await t.dataSource.query('SELECT id FROM deliveries WHERE webhook_id = ? ORDER BY id LIMIT 2', [webhookId]);
    await t.dataSource.query("UPDATE deliveries SET lane = 1, next_attempt_at = '2001-01-01 00:00:00.000' WHERE id IN (?, ?)", [
      retried[0].id,
      retried[1].id,
    ]);
    const claimed = await claim(t, { webhookId, fresh: 3, retries: 1 }, Date.now() + 1000, token());
    expect(claimed.map((d) => d.retry)).toEqual([false, false, true]);
  });

  it('fails, rather than schedules again, an attempt recorded after its webhook was disabled', async () => {
    const webhookId = await withPendingDeliveries(t, 1);
    const mine = token();
    const now = Date.now() + 1000;
    const [delivery] = await claim(t, { webhookId, fresh: 1 }, now, mine);
    await t.dataSource.query('UPDATE webhooks SET disabled_at = ? WHERE id = ?', [sqlTimestamp(new Date(now)), webhookId]);
    const retry: AttemptRecord = {
      ...record(new Date(now)),
      state: 'pending',
      nextAttemptAt: new Date(now + 5000),
      status: 500,
      error: 'http 500',
    };
    expect(await complete(t, [{ delivery, record: retry }], mine)).toEqual(new Set([delivery.id]));
    const [row] = await t.dataSource.query('SELECT state, attempts FROM deliveries WHERE id = ?', [delivery.id]);
    expect({ state: row.state, attempts: Number(row.attempts) }).toEqual({ state: 'failed', attempts: 1 });
  });

  it('reads the bodies of events once each, leaving out a row that no longer parses', async () => {
    const webhookId = await withPendingDeliveries(t, 2);
    const events: { eventId: string }[] = await t.dataSource.query('SELECT event_id AS eventId FROM deliveries WHERE webhook_id = ?', [
      webhookId,
    ]);
    await t.dataSource.query('UPDATE events SET payload = \'"not sealed"\' WHERE id = ?', [events[0].eventId]);
    expect((await queue.bodies(events.map((e) => e.eventId))).map((b) => b.eventId)).toEqual([events[1].eventId]);
  });
});
