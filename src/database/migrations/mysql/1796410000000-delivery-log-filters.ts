import { MigrationInterface, QueryRunner } from 'typeorm';

/** Deliveries are given their event's type this many ids at a time: no statement holds a long run of row locks. */
const BATCH = 10_000;

/**
 * docs/api.md 10.7, 10.14 (MySQL/MariaDB): the delivery log's filters (`state`, `type`, `since`,
 * `until`) and a recovery's range are each one range of an index, in the log's order (newest
 * `created_at` first, then id): a delivery keeps its event's type beside it (the fan-out sets
 * it), and the log's indexes by id give way to indexes by creation time, one per filter
 * combination. The new indexes are made before the old ones go, so that the webhook's foreign
 * key always has one.
 */
export class DeliveryLogFilters1796410000000 implements MigrationInterface {
  name = 'DeliveryLogFilters1796410000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query("ALTER TABLE deliveries ADD event_type varchar(64) NOT NULL DEFAULT ''");
    const [{ last }] = (await db.query('SELECT COALESCE(MAX(id), 0) AS last FROM deliveries')) as { last: number | string }[];
    for (let from = 0; from < Number(last); from += BATCH) {
      await db.query('UPDATE deliveries d JOIN events e ON e.id = d.event_id SET d.event_type = e.type WHERE d.id > ? AND d.id <= ?', [
        from,
        from + BATCH,
      ]);
    }
    await db.query(`ALTER TABLE deliveries
      ADD INDEX ix_deliveries_webhook_created (webhook_id, created_at, id),
      ADD INDEX ix_deliveries_webhook_state_created (webhook_id, state, created_at, id),
      ADD INDEX ix_deliveries_webhook_type_created (webhook_id, event_type, created_at, id),
      ADD INDEX ix_deliveries_webhook_state_type_created (webhook_id, state, event_type, created_at, id)`);
    await db.query('ALTER TABLE deliveries DROP INDEX ix_deliveries_webhook, DROP INDEX ix_deliveries_webhook_state');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE deliveries
      ADD INDEX ix_deliveries_webhook (webhook_id, id),
      ADD INDEX ix_deliveries_webhook_state (webhook_id, state, id)`);
    await db.query(`ALTER TABLE deliveries
      DROP INDEX ix_deliveries_webhook_created,
      DROP INDEX ix_deliveries_webhook_state_created,
      DROP INDEX ix_deliveries_webhook_type_created,
      DROP INDEX ix_deliveries_webhook_state_type_created,
      DROP COLUMN event_type`);
  }
}
