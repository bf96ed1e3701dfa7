import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 3 and 10: platform keys, events, deliveries and their attempts (SQLite). */
export class EventDelivery1795700000000 implements MigrationInterface {
  name = 'EventDelivery1795700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "platform_keys" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "name" varchar(255) NOT NULL,
      "token_hash" varchar(64) NOT NULL,
      "revoked_at" datetime(3),
      "created_at" datetime NOT NULL DEFAULT (datetime('now'))
    )`);
    await db.query(`CREATE UNIQUE INDEX "uq_platform_keys_token_hash" ON "platform_keys" ("token_hash")`);
    await db.query(`CREATE TABLE "events" (
      "id" varchar(32) PRIMARY KEY NOT NULL,
      "organization_id" integer NOT NULL,
      "type" varchar(64) NOT NULL,
      "idempotency_key" varchar(255),
      "request_hash" varchar(64) NOT NULL,
      "payload" json NOT NULL,
      "created_at" datetime(3) NOT NULL,
      CONSTRAINT "fk_events_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_events_created" ON "events" ("created_at")`);
    await db.query(`CREATE UNIQUE INDEX "uq_events_idempotency" ON "events" ("organization_id", "idempotency_key")`);
    await db.query(`CREATE TABLE "deliveries" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "event_id" varchar(32) NOT NULL,
      "organization_id" integer NOT NULL,
      "webhook_id" integer,
      "state" varchar CHECK( "state" IN ('pending','succeeded','failed','cancelled') ) NOT NULL,
      "attempts" integer NOT NULL DEFAULT (0),
      "retry_from" integer NOT NULL DEFAULT (0),
      "next_attempt_at" datetime(3),
      "claim_token" varchar(32),
      "last_attempt_at" datetime(3),
      "last_duration_ms" integer,
      "last_status" integer,
      "last_error" varchar(32),
      "created_at" datetime(3) NOT NULL,
      CONSTRAINT "fk_deliveries_event" FOREIGN KEY ("event_id") REFERENCES "events" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_deliveries_webhook" FOREIGN KEY ("webhook_id") REFERENCES "webhooks" ("id") ON DELETE SET NULL ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_deliveries_event" ON "deliveries" ("event_id")`);
    await db.query(`CREATE INDEX "ix_deliveries_webhook" ON "deliveries" ("webhook_id", "id")`);
    await db.query(`CREATE INDEX "ix_deliveries_webhook_state" ON "deliveries" ("webhook_id", "state", "id")`);
    await db.query(`CREATE INDEX "ix_deliveries_due" ON "deliveries" ("state", "next_attempt_at")`);
    await db.query(`CREATE TABLE "delivery_attempts" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "delivery_id" integer NOT NULL,
      "at" datetime(3) NOT NULL,
      "duration_ms" integer NOT NULL,
      "status" integer,
      "error" varchar(32),
      CONSTRAINT "fk_delivery_attempts_delivery" FOREIGN KEY ("delivery_id") REFERENCES "deliveries" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_delivery_attempts_delivery" ON "delivery_attempts" ("delivery_id", "id")`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['delivery_attempts', 'deliveries', 'events', 'platform_keys']) await db.query(`DROP TABLE "${table}"`);
  }
}
