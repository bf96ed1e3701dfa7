import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 6.1 (MySQL/MariaDB): an issuer's kind (`stored`, the default every issuer had, or
 * the processor it speaks to), its base URL and its sealed credentials; a card's processor token
 * and what the wallet shows of it; and the audit trail's `card.provisioned` entries, which name a
 * card instead of a webhook.
 */
export class PushProvisioning1796430000000 implements MigrationInterface {
  name = 'PushProvisioning1796430000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE issuers
      ADD kind varchar(16) NOT NULL DEFAULT 'stored',
      ADD base_url varchar(2048) NULL,
      ADD credentials varchar(2048) NULL,
      ADD credentials_key_id varchar(16) NULL`);
    await db.query(`ALTER TABLE cards
      ADD processor_token varchar(255) NULL,
      ADD title varchar(64) NULL,
      ADD cardholder_name varchar(128) NULL,
      ADD primary_account_suffix varchar(4) NULL,
      ADD network varchar(16) NULL`);
    await db.query('ALTER TABLE audit_entries MODIFY webhook varchar(64) NULL, ADD card_id int NULL');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DELETE FROM audit_entries WHERE webhook IS NULL');
    await db.query('ALTER TABLE audit_entries DROP COLUMN card_id, MODIFY webhook varchar(64) NOT NULL');
    await db.query(`ALTER TABLE cards
      DROP COLUMN processor_token, DROP COLUMN title, DROP COLUMN cardholder_name, DROP COLUMN primary_account_suffix, DROP COLUMN network`);
    await db.query('ALTER TABLE issuers DROP COLUMN kind, DROP COLUMN base_url, DROP COLUMN credentials, DROP COLUMN credentials_key_id');
  }
}
