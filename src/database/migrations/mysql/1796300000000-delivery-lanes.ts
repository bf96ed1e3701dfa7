import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 10.10 (MySQL/MariaDB): a delivery's lane, so that a backlog of retries never keeps
 * first attempts waiting (0: a first attempt, a test, a replay; 1: a scheduled retry or a
 * recovered delivery), in the index that finds a webhook's oldest due delivery of each lane in
 * one seek; and an event body's size, so that the dispatcher knows what it would hold before
 * it reads the body (DELIVERY_BUFFER_MB).
 */
export class DeliveryLanes1796300000000 implements MigrationInterface {
  name = 'DeliveryLanes1796300000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE deliveries ADD lane int NOT NULL DEFAULT 0');
    await db.query("UPDATE deliveries SET lane = 1 WHERE state = 'pending' AND attempts > retry_from");
    await db.query('CREATE INDEX ix_deliveries_webhook_lane_due ON deliveries (webhook_id, state, lane, next_attempt_at)');
    await db.query('DROP INDEX ix_deliveries_webhook_due ON deliveries');
    await db.query('ALTER TABLE events ADD body_bytes int NULL');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE events DROP COLUMN body_bytes');
    await db.query('CREATE INDEX ix_deliveries_webhook_due ON deliveries (webhook_id, state, next_attempt_at)');
    await db.query('DROP INDEX ix_deliveries_webhook_lane_due ON deliveries');
    await db.query('ALTER TABLE deliveries DROP COLUMN lane');
  }
}
