import { afterAll, beforeAll, expect, it } from 'vitest';
import { DeliveryQueue } from '../src/delivery/dispatch/delivery-queue';
import { EventIngest } from '../src/delivery/events/event-ingest.service';
import { DatabaseKind, describeEachDatabase, describeOnMariadb } from './support/databases';
import { TestApp } from './support/test-app';

/*
 * The queue's claim and lease (docs/api.md 10.5, 10.6), on the real databases: claims by
 * several instances at once never overlap, a lease that runs out makes a delivery due again,
 * and the claimer whose lease ran out can no longer record its attempt. Dispatchers are off
 * (DELIVERY_CONCURRENCY=0): the tests claim by hand.
 */

const ZONE = { 'hooks.example.com': { A: ['93.184.215.14'] } };
const OFF = { DELIVERY_CONCURRENCY: '0' };
const LEASE_MS = 60_000;

async function withPendingDeliveries(t: TestApp, count: number): Promise<number> {
  const { organizationId, cookie } = await t.member('owner');
  expect((await t.http().post('/api/webhook/queued').set('Cookie', cookie).send({ url: 'https://hooks.example.com/q' })).status).toBe(201);
  const ingest = t.app.get(EventIngest);
  for (let i = 0; i < count; i++) await ingest.accept({ type: 'user.updated', organization: organizationId, data: { i } });
  return organizationId;
}

const record = (at: Date) => ({ state: 'succeeded' as const, nextAttemptAt: null, at, durationMs: 5, status: 200, error: null });

describeOnMariadb('claims on one database from several instances', () => {
  let instances: TestApp[];
  beforeAll(async () => {
    const first = await TestApp.start('mariadb', { zone: ZONE, env: OFF });
    instances = [first, await first.another({ zone: ZONE, env: OFF }), await first.another({ zone: ZONE, env: OFF })];
    await withPendingDeliveries(first, 300);
  });
  afterAll(async () => {
    for (const t of [...(instances ?? [])].reverse()) await t.close();
  });

  it('never hand one delivery to two claimers, and leave none unclaimed (SKIP LOCKED)', async () => {
    const now = new Date(Date.now() + 1000);
    const claims = await Promise.all(
      instances.flatMap((t) => Array.from({ length: 4 }, () => t.app.get(DeliveryQueue).claim(30, now, LEASE_MS))),
    );
    const more = await Promise.all(instances.flatMap((t) => Array.from({ length: 4 }, () => t.app.get(DeliveryQueue).claim(30, now, LEASE_MS))));
    const ids = [...claims, ...more].flat().map((d) => d.id);
    expect(ids).toHaveLength(300);
    expect(new Set(ids).size).toBe(300);
  });
});

describeEachDatabase('a claim and its lease', (kind: DatabaseKind) => {
  let t: TestApp;
  let queue: DeliveryQueue;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: ZONE, env: OFF });
    queue = t.app.get(DeliveryQueue);
  });
  afterAll(() => t?.close());

  it('makes a claimed delivery due again once its lease has run out, for a new claimer', async () => {
    await withPendingDeliveries(t, 1);
    const now = new Date(Date.now() + 1000);
    const [first] = await queue.claim(10, now, LEASE_MS);
    expect(first).toBeDefined();
    expect(await queue.claim(10, new Date(now.getTime() + LEASE_MS - 1), LEASE_MS)).toEqual([]);
    const [again] = await queue.claim(10, new Date(now.getTime() + LEASE_MS + 1), LEASE_MS);
    expect(again.id).toBe(first.id);
    expect(again.claimToken).not.toBe(first.claimToken);
    // the first claimer's late result is dropped; the current one's counts
    expect(await queue.complete(first, record(now))).toBe(false);
    expect(await queue.complete(again, record(now))).toBe(true);
    const [row] = await t.dataSource.query('SELECT state, attempts FROM deliveries WHERE id = ?', [first.id]);
    expect({ state: row.state, attempts: Number(row.attempts) }).toEqual({ state: 'succeeded', attempts: 1 });
  });

  it('does not claim a delivery that is not due yet', async () => {
    await withPendingDeliveries(t, 1);
    expect(await queue.claim(10, new Date(Date.now() - 60_000), LEASE_MS)).toEqual([]);
  });

  it('gives released claims back, due at once', async () => {
    await withPendingDeliveries(t, 2);
    const now = new Date(Date.now() + 1000);
    const claimed = await queue.claim(10, now, LEASE_MS);
    await queue.release(claimed, now);
    expect((await queue.claim(10, now, LEASE_MS)).map((d) => d.id).sort()).toEqual(claimed.map((d) => d.id).sort());
  });
});
