import { MigrationInterface, QueryRunner } from 'typeorm';

const AUDIT_COLUMNS = '"id", "organization_id", "at", "actor_user_id", "action", "webhook", "fields"';

/** The audit table with `actor_user_id` as given: SQLite changes a column only by copying its table. */
async function rebuildAuditEntries(db: QueryRunner, actor: 'NULL' | 'NOT NULL'): Promise<void> {
  await db.query(`CREATE TABLE "audit_entries_new" (
    "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
    "organization_id" integer NOT NULL,
    "at" datetime(3) NOT NULL,
    "actor_user_id" integer ${actor},
    "action" varchar(32) NOT NULL,
    "webhook" varchar(64) NOT NULL,
    "fields" varchar(512) NOT NULL,
    CONSTRAINT "fk_audit_entries_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
  )`);
  await db.query(`INSERT INTO "audit_entries_new" (${AUDIT_COLUMNS}) SELECT ${AUDIT_COLUMNS} FROM "audit_entries"`);
  await db.query('DROP TABLE "audit_entries"');
  await db.query('ALTER TABLE "audit_entries_new" RENAME TO "audit_entries"');
  await db.query('CREATE INDEX "ix_audit_entries_organization" ON "audit_entries" ("organization_id", "id")');
  await db.query('CREATE INDEX "ix_audit_entries_at" ON "audit_entries" ("at")');
}

/** docs/api.md 10.10 (SQLite): as the MySQL migration of the same name says. */
export class FairDelivery1796000000000 implements MigrationInterface {
  name = 'FairDelivery1796000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE "webhooks" ADD COLUMN "rate_limit" integer');
    await db.query('ALTER TABLE "webhooks" ADD COLUMN "disabled_at" datetime(3)');
    await db.query(`CREATE TABLE "webhook_health" (
      "webhook_id" integer PRIMARY KEY NOT NULL,
      "failing_since" datetime(3),
      "failed_attempts" integer NOT NULL DEFAULT (0),
      "breaker_failures" integer NOT NULL DEFAULT (0),
      "breaker_open_until" datetime(3),
      "rate_next_at" datetime(3),
      CONSTRAINT "fk_webhook_health_webhook" FOREIGN KEY ("webhook_id") REFERENCES "webhooks" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query('CREATE INDEX "ix_deliveries_webhook_due" ON "deliveries" ("webhook_id", "state", "next_attempt_at")');
    await rebuildAuditEntries(db, 'NULL');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DELETE FROM "audit_entries" WHERE "actor_user_id" IS NULL');
    await rebuildAuditEntries(db, 'NOT NULL');
    await db.query('DROP INDEX "ix_deliveries_webhook_due"');
    await db.query('DROP TABLE "webhook_health"');
    await db.query('ALTER TABLE "webhooks" DROP COLUMN "disabled_at"');
    await db.query('ALTER TABLE "webhooks" DROP COLUMN "rate_limit"');
  }
}
