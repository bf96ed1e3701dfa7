import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 3 and 5: identity, cards and webhooks (SQLite). */
export class InitialSchema1795342000000 implements MigrationInterface {
  name = 'InitialSchema1795342000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "organizations" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "name" varchar(255) NOT NULL,
      "created_at" datetime NOT NULL DEFAULT (datetime('now'))
    )`);
    await db.query(`CREATE TABLE "users" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "email" varchar(320) NOT NULL,
      "name" varchar(255),
      "created_at" datetime NOT NULL DEFAULT (datetime('now'))
    )`);
    await db.query(`CREATE UNIQUE INDEX "uq_users_email" ON "users" ("email")`);
    await db.query(`CREATE TABLE "members" (
      "organization_id" integer NOT NULL,
      "user_id" integer NOT NULL,
      "role" varchar CHECK( "role" IN ('owner','admin','member') ) NOT NULL,
      "created_at" datetime NOT NULL DEFAULT (datetime('now')),
      PRIMARY KEY ("organization_id", "user_id"),
      CONSTRAINT "fk_members_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_members_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_members_user" ON "members" ("user_id")`);
    await db.query(`CREATE TABLE "sessions" (
      "token_hash" varchar(64) PRIMARY KEY NOT NULL,
      "user_id" integer NOT NULL,
      "active_organization_id" integer,
      "expires_at" datetime(3) NOT NULL,
      "revoked_at" datetime(3),
      "created_at" datetime NOT NULL DEFAULT (datetime('now')),
      CONSTRAINT "fk_sessions_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_sessions_organization" FOREIGN KEY ("active_organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_sessions_user" ON "sessions" ("user_id")`);
    await db.query(`CREATE TABLE "access_tokens" (
      "token_hash" varchar(64) PRIMARY KEY NOT NULL,
      "kind" varchar CHECK( "kind" IN ('wallet_extension') ) NOT NULL,
      "user_id" integer NOT NULL,
      "expires_at" datetime(3) NOT NULL,
      "revoked_at" datetime(3),
      "created_at" datetime NOT NULL DEFAULT (datetime('now')),
      CONSTRAINT "fk_access_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_access_tokens_user" ON "access_tokens" ("user_id")`);
    await db.query(`CREATE TABLE "issuers" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "name" varchar(255) NOT NULL,
      "created_at" datetime NOT NULL DEFAULT (datetime('now'))
    )`);
    await db.query(`CREATE TABLE "cards" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "user_id" integer NOT NULL,
      "organization_id" integer NOT NULL,
      "status" varchar CHECK( "status" IN ('active','frozen','closed') ) NOT NULL,
      "issuer_id" integer,
      "provisioning_id" varchar(255),
      "provisioning_secret" varchar(1024),
      "provisioning_secret_key_id" varchar(16),
      "created_at" datetime NOT NULL DEFAULT (datetime('now')),
      CONSTRAINT "fk_cards_user" FOREIGN KEY ("user_id") REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_cards_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_cards_issuer" FOREIGN KEY ("issuer_id") REFERENCES "issuers" ("id") ON DELETE NO ACTION ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_cards_user_status_created" ON "cards" ("user_id", "status", "created_at", "id")`);
    await db.query(`CREATE INDEX "ix_cards_organization" ON "cards" ("organization_id")`);
    await db.query(`CREATE INDEX "ix_cards_issuer" ON "cards" ("issuer_id")`);
    await db.query(`CREATE TABLE "webhook_sources" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "organization_id" integer NOT NULL,
      "created_at" datetime NOT NULL DEFAULT (datetime('now')),
      CONSTRAINT "fk_webhook_sources_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE UNIQUE INDEX "uq_webhook_sources_organization" ON "webhook_sources" ("organization_id")`);
    await db.query(`CREATE TABLE "webhooks" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "source_id" integer NOT NULL,
      "name" varchar(64) NOT NULL,
      "url" varchar(2048) NOT NULL,
      "transaction_created_url" varchar(2048),
      "transaction_updated_url" varchar(2048),
      "transaction_completed_url" varchar(2048),
      "card_updated_url" varchar(2048),
      "user_updated_url" varchar(2048),
      "secret" varchar(256) NOT NULL,
      "secret_key_id" varchar(16) NOT NULL,
      "created_at" datetime NOT NULL DEFAULT (datetime('now')),
      "updated_at" datetime NOT NULL DEFAULT (datetime('now')),
      CONSTRAINT "fk_webhooks_source" FOREIGN KEY ("source_id") REFERENCES "webhook_sources" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE UNIQUE INDEX "uq_webhooks_source_name" ON "webhooks" ("source_id", "name")`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of [
      'webhooks',
      'webhook_sources',
      'cards',
      'issuers',
      'access_tokens',
      'sessions',
      'members',
      'users',
      'organizations',
    ]) {
      await db.query(`DROP TABLE "${table}"`);
    }
  }
}
