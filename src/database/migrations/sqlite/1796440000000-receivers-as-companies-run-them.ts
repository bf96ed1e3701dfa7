import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 10.16, 10.17, 10.18 (SQLite): as the MySQL migration of the same name says. */
export class ReceiversAsCompaniesRunThem1796440000000 implements MigrationInterface {
  name = 'ReceiversAsCompaniesRunThem1796440000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "auth" text`);
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "auth_secret" text`);
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "auth_secret_key_id" varchar(16)`);
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "ordered" boolean NOT NULL DEFAULT (0)`);
    await db.query(`ALTER TABLE "events" ADD COLUMN "trace_id" varchar(32)`);
    await db.query(`ALTER TABLE "events" ADD COLUMN "trace_span_id" varchar(16)`);
    await db.query(`ALTER TABLE "events" ADD COLUMN "trace_state" varchar(512)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const column of ['trace_state', 'trace_span_id', 'trace_id']) await db.query(`ALTER TABLE "events" DROP COLUMN "${column}"`);
    for (const column of ['ordered', 'auth_secret_key_id', 'auth_secret', 'auth'])
      await db.query(`ALTER TABLE "webhooks" DROP COLUMN "${column}"`);
  }
}
