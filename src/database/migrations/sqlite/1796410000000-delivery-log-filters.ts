import { MigrationInterface, QueryRunner } from 'typeorm';

const INDEXES: [name: string, columns: string][] = [
  ['ix_deliveries_webhook_created', '"webhook_id", "created_at", "id"'],
  ['ix_deliveries_webhook_state_created', '"webhook_id", "state", "created_at", "id"'],
  ['ix_deliveries_webhook_type_created', '"webhook_id", "event_type", "created_at", "id"'],
  ['ix_deliveries_webhook_state_type_created', '"webhook_id", "state", "event_type", "created_at", "id"'],
];

/** docs/api.md 10.7, 10.14 (SQLite): as the MySQL migration of the same name says. */
export class DeliveryLogFilters1796410000000 implements MigrationInterface {
  name = 'DeliveryLogFilters1796410000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "deliveries" ADD COLUMN "event_type" varchar(64) NOT NULL DEFAULT ('')`);
    await db.query('UPDATE "deliveries" SET "event_type" = (SELECT "type" FROM "events" WHERE "events"."id" = "deliveries"."event_id")');
    for (const [name, columns] of INDEXES) await db.query(`CREATE INDEX "${name}" ON "deliveries" (${columns})`);
    await db.query('DROP INDEX "ix_deliveries_webhook"');
    await db.query('DROP INDEX "ix_deliveries_webhook_state"');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('CREATE INDEX "ix_deliveries_webhook" ON "deliveries" ("webhook_id", "id")');
    await db.query('CREATE INDEX "ix_deliveries_webhook_state" ON "deliveries" ("webhook_id", "state", "id")');
    for (const [name] of INDEXES) await db.query(`DROP INDEX "${name}"`);
    await db.query('ALTER TABLE "deliveries" DROP COLUMN "event_type"');
  }
}
