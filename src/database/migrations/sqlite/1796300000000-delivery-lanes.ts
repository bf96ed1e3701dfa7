import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 10.10 (SQLite): as the MySQL migration of the same name says. */
export class DeliveryLanes1796300000000 implements MigrationInterface {
  name = 'DeliveryLanes1796300000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE "deliveries" ADD COLUMN "lane" integer NOT NULL DEFAULT (0)');
    await db.query(`UPDATE "deliveries" SET "lane" = 1 WHERE "state" = 'pending' AND "attempts" > "retry_from"`);
    await db.query('CREATE INDEX "ix_deliveries_webhook_lane_due" ON "deliveries" ("webhook_id", "state", "lane", "next_attempt_at")');
    await db.query('DROP INDEX "ix_deliveries_webhook_due"');
    await db.query('ALTER TABLE "events" ADD COLUMN "body_bytes" integer');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE "events" DROP COLUMN "body_bytes"');
    await db.query('CREATE INDEX "ix_deliveries_webhook_due" ON "deliveries" ("webhook_id", "state", "next_attempt_at")');
    await db.query('DROP INDEX "ix_deliveries_webhook_lane_due"');
    await db.query('ALTER TABLE "deliveries" DROP COLUMN "lane"');
  }
}
