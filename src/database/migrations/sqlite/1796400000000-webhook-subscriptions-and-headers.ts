import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 10.13, 10.15 (SQLite): as the MySQL migration of the same name says. */
export class WebhookSubscriptionsAndHeaders1796400000000 implements MigrationInterface {
  name = 'WebhookSubscriptionsAndHeaders1796400000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "event_types" varchar(255)`);
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "header_names" text`);
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "headers" text`);
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "headers_key_id" varchar(16)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const column of ['headers_key_id', 'headers', 'header_names', 'event_types']) {
      await db.query(`ALTER TABLE "webhooks" DROP COLUMN "${column}"`);
    }
  }
}
