import { afterAll, beforeAll, expect, it } from 'vitest';
import { pageSql } from '../../src/delivery/log/delivery-log.repository';
import { EventIngest } from '../../src/delivery/events/event-ingest.service';
import { describeOnMariadb } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * The delivery log stays one indexed range scan however many deliveries there are (docs/api.md
 * 10.7): MariaDB's plan for a page, with and without the state filter and with a cursor, reads
 * ix_deliveries_webhook or ix_deliveries_webhook_state in id order, with no sort and no scan of
 * another webhook's rows. 200 000 deliveries of two webhooks, statistics up to date.
 */

const ROWS = 100_000;

describeOnMariadb('the delivery log query plan', () => {
  let t: TestApp;
  let webhookId: number;

  beforeAll(async () => {
    t = await TestApp.start('mariadb', { zone: { 'hooks.example.com': { A: ['93.184.215.14'] } }, env: { DELIVERY_CONCURRENCY: '0' } });
    const { organizationId, cookie } = await t.member('owner');
    for (const name of ['planned', 'other']) {
      expect(
        (
          await t
            .http()
            .post(`/api/webhook/${name}`)
            .set('Cookie', cookie)
            .send({ url: `https://hooks.example.com/${name}` })
        ).status,
      ).toBe(201);
    }
    const { id: eventId } = await t.app.get(EventIngest).accept({ type: 'user.updated', organization: organizationId, data: {} });
    const webhooks: { id: number; name: string }[] = await t.dataSource.query('SELECT id, name FROM webhooks ORDER BY name');
    for (const { id } of webhooks) {
      await t.dataSource.query(
        `INSERT INTO deliveries (event_id, organization_id, webhook_id, state, attempts, next_attempt_at, created_at)
         SELECT ?, ?, ?, ELT(1 + seq MOD 4, 'pending', 'succeeded', 'failed', 'cancelled'), 1, NULL, UTC_TIMESTAMP(3) FROM seq_1_to_${ROWS}`,
        [eventId, organizationId, id],
      );
    }
    webhookId = Number(webhooks.find((w) => w.name === 'planned')!.id);
    await t.dataSource.query('ANALYZE TABLE deliveries');
  }, 120_000);
  afterAll(() => t?.close());

  /** The plan of the repository's own statement, for the deliveries' part of it. */
  async function plan(sql: string, params: (string | number)[]): Promise<{ key: string; extra: string; type: string }> {
    const rows: Record<string, unknown>[] = await t.dataSource.query(`EXPLAIN ${sql}`, params);
    const deliveries = rows.find((row) => row.table === 'deliveries');
    expect(deliveries, JSON.stringify(rows)).toBeDefined();
    return { key: String(deliveries!.key), extra: String(deliveries!.Extra ?? ''), type: String(deliveries!.type) };
  }

  it.each([
    ['a first page', { state: false, before: false }, [], 'ix_deliveries_webhook'],
    ['a later page', { state: false, before: true }, [150_000], 'ix_deliveries_webhook'],
    ['a first page of one state', { state: true, before: false }, ['failed'], 'ix_deliveries_webhook_state'],
    ['a later page of one state', { state: true, before: true }, ['failed', 150_000], 'ix_deliveries_webhook_state'],
  ] as const)('reads %s through its index in id order, without a sort', async (_, shape, rest, index) => {
    const explained = await plan(pageSql(shape), [webhookId, ...rest, 51]);
    expect(explained.key).toBe(index);
    expect(explained.extra).not.toMatch(/filesort|temporary/i);
    expect(['ref', 'range']).toContain(explained.type);
  });
});
