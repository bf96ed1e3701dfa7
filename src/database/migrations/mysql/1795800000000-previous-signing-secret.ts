import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 10.7: the previous signing secret a rotation keeps until it expires (MySQL/MariaDB). */
export class PreviousSigningSecret1795800000000 implements MigrationInterface {
  name = 'PreviousSigningSecret1795800000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhooks
      ADD previous_secret varchar(256) NULL,
      ADD previous_secret_key_id varchar(16) NULL,
      ADD previous_secret_expires_at datetime(3) NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE webhooks DROP COLUMN previous_secret, DROP COLUMN previous_secret_key_id, DROP COLUMN previous_secret_expires_at',
    );
  }
}
