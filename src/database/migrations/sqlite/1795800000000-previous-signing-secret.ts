import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 10.7: the previous signing secret a rotation keeps until it expires (SQLite). */
export class PreviousSigningSecret1795800000000 implements MigrationInterface {
  name = 'PreviousSigningSecret1795800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "previous_secret" varchar(256)`);
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "previous_secret_key_id" varchar(16)`);
    await db.query(`ALTER TABLE "webhooks" ADD COLUMN "previous_secret_expires_at" datetime(3)`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const column of ['previous_secret_expires_at', 'previous_secret_key_id', 'previous_secret']) {
      await db.query(`ALTER TABLE "webhooks" DROP COLUMN "${column}"`);
    }
  }
}
