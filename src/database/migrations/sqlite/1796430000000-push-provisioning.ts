import { MigrationInterface, QueryRunner } from 'typeorm';

const AUDIT_COLUMNS = '"id", "organization_id", "at", "actor_user_id", "action", "webhook", "fields"';

const ISSUER_COLUMNS: [name: string, type: string][] = [
  ['kind', `varchar(16) NOT NULL DEFAULT ('stored')`],
  ['base_url', 'varchar(2048)'],
  ['credentials', 'varchar(2048)'],
  ['credentials_key_id', 'varchar(16)'],
];

const CARD_COLUMNS: [name: string, type: string][] = [
  ['processor_token', 'varchar(255)'],
  ['title', 'varchar(64)'],
  ['cardholder_name', 'varchar(128)'],
  ['primary_account_suffix', 'varchar(4)'],
  ['network', 'varchar(16)'],
];

/** The audit trail with `webhook` as given and, for card entries, `card_id`: SQLite changes a column only by copying its table. */
async function rebuildAuditEntries(db: QueryRunner, cards: boolean): Promise<void> {
  await db.query(`CREATE TABLE "audit_entries_new" (
    "id" integer PRIMARY KEY AUTOINCREMENT NOT NULL,
    "organization_id" integer NOT NULL,
    "at" datetime(3) NOT NULL,
    "actor_user_id" integer,
    "action" varchar(32) NOT NULL,
    "webhook" varchar(64)${cards ? '' : ' NOT NULL'},
    "fields" varchar(512) NOT NULL,${cards ? '\n    "card_id" integer,' : ''}
    CONSTRAINT "fk_audit_entries_organization" FOREIGN KEY ("organization_id") REFERENCES "organizations" ("id") ON DELETE CASCADE ON UPDATE NO ACTION
  )`);
  await db.query(`INSERT INTO "audit_entries_new" (${AUDIT_COLUMNS}) SELECT ${AUDIT_COLUMNS} FROM "audit_entries"`);
  await db.query('DROP TABLE "audit_entries"');
  await db.query('ALTER TABLE "audit_entries_new" RENAME TO "audit_entries"');
  await db.query('CREATE INDEX "ix_audit_entries_organization" ON "audit_entries" ("organization_id", "id")');
  await db.query('CREATE INDEX "ix_audit_entries_at" ON "audit_entries" ("at")');
}

/** docs/api.md 6.1 (SQLite): as the MySQL migration of the same name says. */
export class PushProvisioning1796430000000 implements MigrationInterface {
  name = 'PushProvisioning1796430000000';

  async up(db: QueryRunner): Promise<void> {
    for (const [name, type] of ISSUER_COLUMNS) await db.query(`ALTER TABLE "issuers" ADD COLUMN "${name}" ${type}`);
    for (const [name, type] of CARD_COLUMNS) await db.query(`ALTER TABLE "cards" ADD COLUMN "${name}" ${type}`);
    await rebuildAuditEntries(db, true);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DELETE FROM "audit_entries" WHERE "webhook" IS NULL');
    await rebuildAuditEntries(db, false);
    for (const [name] of CARD_COLUMNS) await db.query(`ALTER TABLE "cards" DROP COLUMN "${name}"`);
    for (const [name] of ISSUER_COLUMNS) await db.query(`ALTER TABLE "issuers" DROP COLUMN "${name}"`);
  }
}
