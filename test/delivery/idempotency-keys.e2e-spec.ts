import { afterAll, beforeAll, expect, it } from 'vitest';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * docs/api.md 10.1: an Idempotency-Key is compared byte for byte, on every database. MariaDB's
 * default collations fold case (and the test databases are created utf8mb4_unicode_ci, as a
 * deployment's would be), so before the column was binary `order-a` replayed `Order-A`'s event
 * and `ORDER-A` with another body was a 409. Dispatching is off: only ingest is tested.
 */

describeEachDatabase('Idempotency-Key is case-sensitive', (kind: DatabaseKind) => {
  let t: TestApp;
  let platformKey: string;

  beforeAll(async () => {
    t = await TestApp.start(kind, { env: { DELIVERY_CONCURRENCY: '0' } });
    platformKey = (await t.identity.createPlatformKey('platform')).token;
  });
  afterAll(() => t?.close());

  const sendEvent = (body: object, key: string) =>
    t.http().post('/api/events').set('Authorization', `Bearer ${platformKey}`).set('Idempotency-Key', key).send(body);

  const eventCount = async (organizationId: number): Promise<number> =>
    Number((await t.dataSource.query('SELECT COUNT(*) AS n FROM events WHERE organization_id = ?', [organizationId]))[0].n);

  it('takes keys that differ only in letter case, with the same body, as two events', async () => {
    const { organizationId } = await t.member('owner');
    const body = { type: 'transaction.created', organization: organizationId, data: { id: 'tx_1' } };
    const first = await sendEvent(body, 'Order-A');
    const second = await sendEvent(body, 'order-a');
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.body.id).not.toBe(first.body.id);
    expect(await eventCount(organizationId)).toBe(2);
  });

  it('takes a key that differs only in letter case, with another body, as a new event (not a 409)', async () => {
    const { organizationId } = await t.member('owner');
    const first = await sendEvent({ type: 'user.updated', organization: organizationId, data: { v: 1 } }, 'Order-B');
    const other = await sendEvent({ type: 'user.updated', organization: organizationId, data: { v: 2 } }, 'ORDER-B');
    expect([first.status, other.status]).toEqual([202, 202]);
    expect(other.body.id).not.toBe(first.body.id);
  });

  it('still replays the very same key, byte for byte, and refuses it with another body', async () => {
    const { organizationId } = await t.member('owner');
    const body = { type: 'user.updated', organization: organizationId, data: { v: 1 } };
    const first = await sendEvent(body, 'Order-C');
    const again = await sendEvent(body, 'Order-C');
    const conflict = await sendEvent({ ...body, data: { v: 2 } }, 'Order-C');
    expect(again.body).toEqual(first.body);
    expect({ status: conflict.status, body: conflict.body }).toEqual({ status: 409, body: { code: 'idempotency conflict' } });
    expect(await eventCount(organizationId)).toBe(1);
  });

  it('keeps keys that differ only in letter case apart in the unique index too (a race is decided per exact key)', async () => {
    const { organizationId } = await t.member('owner');
    const keys = ['race-key', 'RACE-KEY', 'Race-Key', 'race-KEY'];
    const answers = await Promise.all(keys.map((key) => sendEvent({ type: 'user.updated', organization: organizationId, data: {} }, key)));
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 202]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(4);
    expect(await eventCount(organizationId)).toBe(4);
  });
});
