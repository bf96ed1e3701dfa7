import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 3, 8: platform keys an operator can manage (SQLite): an expiry, the last use, the
 * organizations a key is restricted to, and the operator audit trail of their changes.
 */
export class PlatformKeyScopes1796100000000 implements MigrationInterface {
  name = 'PlatformKeyScopes1796100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "platform_keys" ADD COLUMN "scoped" boolean NOT NULL DEFAULT (0)`);
    await db.query(`ALTER TABLE "platform_keys" ADD COLUMN "expires_at" datetime(3)`);
    await db.query(`ALTER TABLE "platform_keys" ADD COLUMN "last_used_at" datetime(3)`);
    await db.query(`CREATE TABLE "platform_key_organizations" (
      "platform_key_id" integer NOT NULL,
      "organization_id" integer NOT NULL,
      PRIMARY KEY ("platform_key_id", "organization_id"),
      CONSTRAINT "fk_platform_key_organizations_key" FOREIGN KEY ("platform_key_id") REFERENCES "platform_keys" ("id") ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT "fk_platform_key_organizations_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_platform_key_organizations_organization" ON "platform_key_organizations" ("organization_id")`);
    await db.query(`CREATE TABLE "operator_audit_entries" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "at" datetime(3) NOT NULL,
      "action" varchar(32) NOT NULL,
      "platform_key_id" integer NOT NULL,
      "platform_key_name" varchar(255) NOT NULL,
      "organizations" text
    )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE "operator_audit_entries"');
    await db.query('DROP TABLE "platform_key_organizations"');
    for (const column of ['last_used_at', 'expires_at', 'scoped']) {
      await db.query(`ALTER TABLE "platform_keys" DROP COLUMN "${column}"`);
    }
  }
}
