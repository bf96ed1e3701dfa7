import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageIndex, PageShape, pageSql } from '../../src/delivery/log/delivery-log.repository';
import { MYSQL_DIALECT, SQLITE_DIALECT } from '../../src/database/sql-dialect';
import { EventIngest } from '../../src/delivery/events/event-ingest.service';
import { describeOnMariadb } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * The delivery log stays one indexed range scan however many deliveries there are, whatever its
 * filters (docs/api.md 10.7): for every combination of `state`, `type`, `since` and `until`,
 * with and without a cursor, the plan reads the index of the state and type filters given in
 * the log's order (creation time, then id, descending), the times and the cursor bounding its
 * range: no sort, no scan of another webhook's rows, so that a filtered page costs what an
 * unfiltered one does. MariaDB's own choice at 200 000 deliveries of two webhooks with statistics
 * up to date; on SQLite, which keeps no statistics, the statement names its index (INDEXED BY)
 * and the plan shows the range it reads.
 */

const ROWS = 100_000;
const TYPES = ['transaction.created', 'transaction.updated', 'transaction.completed', 'card.updated', 'user.updated'];
const SINCE = '2026-01-10 00:00:00.000';
const UNTIL = '2026-01-11 00:00:00.000';
const AT = '2026-01-10 12:00:00.000';

/** Every combination of the filters, with and without a cursor; the index each must read. */
const SHAPES = [false, true].flatMap((state) =>
  [false, true].flatMap((type) =>
    [false, true].flatMap((since) =>
      [false, true].flatMap((until) => [false, true].map((after) => ({ shape: { state, type, since, until, after } satisfies PageShape }))),
    ),
  ),
);
const nameOf = ({ shape }: (typeof SHAPES)[number]) =>
  Object.entries(shape)
    .filter(([, value]) => value === true)
    .map(([key]) => key)
    .join('+') || 'no filter';
const paramsOf = (webhookId: number, { state, type, since, until, after }: PageShape): (string | number)[] => [
  webhookId,
  ...(state ? ['failed'] : []),
  ...(type ? ['card.updated'] : []),
  ...(since ? [SINCE] : []),
  ...(until ? [UNTIL] : []),
  ...(after ? [AT, AT, 150_000] : []),
  51,
];

async function seed(t: TestApp): Promise<number> {
  const { organizationId, cookie } = await t.member('owner');
  for (const name of ['planned', 'other']) {
    const res = await t
      .http()
      .post(`/api/webhook/${name}`)
      .set('Cookie', cookie)
      .send({ url: `https://hooks.example.com/${name}` });
    expect(res.status).toBe(201);
  }
  await t.app.get(EventIngest).accept({ type: 'user.updated', organization: organizationId, data: {} });
  const webhooks: { id: number; name: string }[] = await t.dataSource.query('SELECT id, name FROM webhooks ORDER BY name');
  return Number(webhooks.find((w) => w.name === 'planned')!.id);
}

describeOnMariadb('the delivery log query plan', () => {
  let t: TestApp;
  let webhookId: number;

  beforeAll(async () => {
    t = await TestApp.start('mariadb', { zone: { 'hooks.example.com': { A: ['93.184.215.14'] } }, env: { DELIVERY_CONCURRENCY: '0' } });
    webhookId = await seed(t);
    const [{ eventId, organizationId }] = await t.dataSource.query('SELECT id AS eventId, organization_id AS organizationId FROM events');
    const webhooks: { id: number }[] = await t.dataSource.query('SELECT id FROM webhooks');
    for (const { id } of webhooks) {
      // a delivery a minute over ~70 days, the types and states spread evenly
      await t.dataSource.query(
        `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, created_at)
         SELECT ?, ?, ELT(1 + seq MOD 5, ${TYPES.map(() => '?').join(', ')}), ?, ELT(1 + seq MOD 4, 'pending', 'succeeded', 'failed', 'cancelled'),
                1, NULL, TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq MINUTE FROM seq_1_to_${ROWS}`,
        [eventId, organizationId, ...TYPES, id],
      );
    }
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

  it.each(SHAPES.map((s) => [nameOf(s), s] as const))(
    'reads a page (%s) through its index in the log order, without a sort',
    async (_, { shape }) => {
      const explained = await plan(pageSql(shape, MYSQL_DIALECT), paramsOf(webhookId, shape));
      expect(explained.key).toBe(pageIndex(shape));
      expect(explained.extra).not.toMatch(/filesort|temporary/i);
      expect(['ref', 'range']).toContain(explained.type);
    },
  );
});

describe('the delivery log query plan [sqlite]', () => {
  let t: TestApp;
  let webhookId: number;

  beforeAll(async () => {
    t = await TestApp.start('sqlite', { zone: { 'hooks.example.com': { A: ['93.184.215.14'] } }, env: { DELIVERY_CONCURRENCY: '0' } });
    webhookId = await seed(t);
  });
  afterAll(() => t?.close());

  it.each(SHAPES.map((s) => [nameOf(s), s] as const))(
    'reads a page (%s) through its index in the log order, without a sort',
    async (_, { shape }) => {
      const sql = `EXPLAIN QUERY PLAN ${pageSql(shape, SQLITE_DIALECT)}`;
      const details = ((await t.dataSource.query(sql, paramsOf(webhookId, shape))) as { detail: string }[]).map((row) => row.detail);
      // the times and the cursor bound the range itself, not a filter over the webhook's every row
      const range = shape.since || shape.until || shape.after ? ' AND created_at[<>]' : '';
      expect(details.join('\n')).toMatch(new RegExp(`SEARCH deliveries USING INDEX ${pageIndex(shape)} \\(webhook_id=\\?.*${range}`));
      expect(details.join('\n')).not.toMatch(/TEMP B-TREE|SCAN deliveries/);
    },
  );
});
