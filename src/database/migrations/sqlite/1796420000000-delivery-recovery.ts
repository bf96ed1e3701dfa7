import { MigrationInterface, QueryRunner } from 'typeorm';

const OPERATOR_COLUMNS = '"id", "at", "action", "platform_key_id", "platform_key_name", "organizations"';

/** The operator trail with the platform key's columns as given: SQLite changes a column only by copying its table. */
async function rebuildOperatorAudit(db: QueryRunner, key: 'NULL' | 'NOT NULL', webhook: boolean): Promise<void> {
  await db.query(`CREATE TABLE "operator_audit_entries_new" (
    "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
    "at" datetime(3) NOT NULL,
    "action" varchar(32) NOT NULL,
    "platform_key_id" integer ${key},
    "platform_key_name" varchar(255) ${key},
    "organizations" text${webhook ? `,\n    "webhook" varchar(64)` : ''}
  )`);
  await db.query(`INSERT INTO "operator_audit_entries_new" (${OPERATOR_COLUMNS}) SELECT ${OPERATOR_COLUMNS} FROM "operator_audit_entries"`);
  await db.query('DROP TABLE "operator_audit_entries"');
  await db.query('ALTER TABLE "operator_audit_entries_new" RENAME TO "operator_audit_entries"');
}

/** docs/api.md 10.14, 8 (SQLite): as the MySQL migration of the same name says. */
export class DeliveryRecovery1796420000000 implements MigrationInterface {
  name = 'DeliveryRecovery1796420000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "delivery_recoveries" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "webhook_id" integer NOT NULL,
      "idempotency_key" varchar(255),
      "request_hash" varchar(64) NOT NULL,
      "since" datetime(3) NOT NULL,
      "until" datetime(3) NOT NULL,
      "requested_at" datetime(3) NOT NULL,
      "deliveries" integer NOT NULL,
      "after_created_at" datetime(3),
      "after_id" integer,
      "claim_token" varchar(32),
      "claimed_until" datetime(3),
      "done_at" datetime(3),
      CONSTRAINT "fk_delivery_recoveries_webhook" FOREIGN KEY ("webhook_id") REFERENCES "webhooks" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query('CREATE UNIQUE INDEX "uq_delivery_recoveries_idempotency" ON "delivery_recoveries" ("webhook_id", "idempotency_key")');
    await db.query('CREATE INDEX "ix_delivery_recoveries_done" ON "delivery_recoveries" ("done_at")');
    await rebuildOperatorAudit(db, 'NULL', true);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DELETE FROM "operator_audit_entries" WHERE "platform_key_id" IS NULL');
    await rebuildOperatorAudit(db, 'NOT NULL', false);
    await db.query('DROP TABLE "delivery_recoveries"');
  }
}
