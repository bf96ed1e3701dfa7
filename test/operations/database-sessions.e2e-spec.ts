import { afterAll, beforeAll, expect, it } from 'vitest';
import { Database } from '../../src/database/database';
import { lockWaitSecondsFor, PINNED_SQL_MODE } from '../../src/database/mysql-connections';
import { varying } from '../../src/database/sql-executor';
import { DispatchDatabase } from '../../src/delivery/dispatch/dispatch-database';
import { IngestDatabase } from '../../src/delivery/events/ingest-database';
import { describeOnMariadb } from '../support/databases';
import { DeliveryHarness, HOOKS } from '../support/delivery-harness';
import type { TestApp } from '../support/test-app';

/*
 * Bounded use of the database server (docs/api.md 9), on MariaDB: however varied the work, an
 * instance holds at most 256 prepared statements over all its connections; every session pins
 * its sql_mode and lock waits shorter than the statement deadline; only ingest's connection
 * takes a multi-statement query.
 */

const QUERY_TIMEOUT_MS = 4000;

/** The statements mysql2 keeps prepared on the server for each connection of a Database's pool (their sum). */
function preparedStatementsOf(database: Database): number {
  const pool = (database as unknown as { mysql: { pool: { _allConnections: { toArray(): { _statements: { size: number } }[] } } } }).mysql
    .pool;
  return pool._allConnections.toArray().reduce((sum, connection) => sum + connection._statements.size, 0);
}

describeOnMariadb('the database sessions of one instance', () => {
  let h: DeliveryHarness;
  let t: TestApp;
  beforeAll(async () => {
    h = await DeliveryHarness.start('mariadb', { env: { DB_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS), DB_POOL_SIZE: '20' } });
    t = h.app;
  });
  afterAll(() => h?.close());

  it('holds at most 256 prepared statements after work of every shape: webhooks of every group, pages of every size, events, deliveries', async () => {
    const groups = [{}, { transaction: { created: `https://${HOOKS}/c` } }, { card: { updated: `https://${HOOKS}/u` } }, { rateLimit: 50 }];
    const { organizationId, cookie } = await h.organizationWith({});
    for (let i = 0; i < 12; i++) {
      const body = { url: `https://${HOOKS}/w${i}`, ...groups[i % groups.length], ...groups[(i >> 2) % groups.length] };
      expect((await t.http().post(`/api/webhook/w${i}`).set('Cookie', cookie).send(body)).status).toBe(201);
    }
    const sent = await Promise.all(
      Array.from({ length: 20 }, (_, i) => h.sendEvent({ type: 'user.updated', organization: organizationId, data: { i } })),
    );
    await Promise.all(sent.map((res) => h.settled(res.body.id)));
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        Promise.all([
          t
            .http()
            .get(`/api/webhook/w${i % 12}/deliveries?limit=${i + 1}`)
            .set('Cookie', cookie),
          t
            .http()
            .get(`/api/audit?limit=${i + 1}`)
            .set('Cookie', cookie),
        ]),
      ),
    );
    const held = [t.app.get(Database), t.app.get(DispatchDatabase), t.app.get(IngestDatabase)].map(preparedStatementsOf);
    expect(held.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(256);
    expect(held[0]).toBeGreaterThan(0);
  });

  it('pins sql_mode and a lock wait that ends before the statement deadline on every pool', async () => {
    for (const database of [t.app.get(Database), t.app.get(DispatchDatabase), t.app.get(IngestDatabase)]) {
      const [row] = await database.select<{ mode: string; lockWait: unknown }>(
        'SELECT @@SESSION.sql_mode AS mode, @@SESSION.innodb_lock_wait_timeout AS lockWait',
      );
      expect(row.mode).toBe(PINNED_SQL_MODE);
      expect(Number(row.lockWait) * 1000).toBeLessThan(QUERY_TIMEOUT_MS);
      expect(Number(row.lockWait)).toBe(lockWaitSecondsFor(QUERY_TIMEOUT_MS));
    }
  });

  it('refuses a stacked query on every connection but ingest’s', async () => {
    for (const database of [t.app.get(Database), t.app.get(DispatchDatabase)]) {
      await expect(database.select(varying('SELECT 1 AS one; SELECT 2 AS two'))).rejects.toMatchObject({ code: 'ER_PARSE_ERROR' });
    }
    expect(await t.app.get(IngestDatabase).atomically([{ sql: 'SELECT 1 AS one', params: [], rows: true }])).toEqual([[{ one: 1 }]]);
  });
});
