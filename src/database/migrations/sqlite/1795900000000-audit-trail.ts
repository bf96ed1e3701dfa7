import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 10.9: the audit trail (SQLite). */
export class AuditTrail1795900000000 implements MigrationInterface {
  name = 'AuditTrail1795900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE "audit_entries" (
      "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
      "organization_id" integer NOT NULL,
      "at" datetime(3) NOT NULL,
      "actor_user_id" integer NOT NULL,
      "action" varchar(32) NOT NULL,
      "webhook" varchar(64) NOT NULL,
      "fields" varchar(512) NOT NULL,
      CONSTRAINT "fk_audit_entries_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
    )`);
    await db.query(`CREATE INDEX "ix_audit_entries_organization" ON "audit_entries" ("organization_id", "id")`);
    await db.query(`CREATE INDEX "ix_audit_entries_at" ON "audit_entries" ("at")`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE "audit_entries"');
  }
}
