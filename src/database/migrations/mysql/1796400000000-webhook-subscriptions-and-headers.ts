import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 10.13, 10.15 (MySQL/MariaDB): the event types a webhook takes (the JSON array as
 * sent; NULL: every type) and its custom headers: their names for reads, and the headers
 * themselves sealed by SecretBox with their key id.
 */
export class WebhookSubscriptionsAndHeaders1796400000000 implements MigrationInterface {
  name = 'WebhookSubscriptionsAndHeaders1796400000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhooks
      ADD event_types varchar(255) NULL,
      ADD header_names text NULL,
      ADD headers text NULL,
      ADD headers_key_id varchar(16) NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(
      'ALTER TABLE webhooks DROP COLUMN event_types, DROP COLUMN header_names, DROP COLUMN headers, DROP COLUMN headers_key_id',
    );
  }
}
