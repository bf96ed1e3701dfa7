import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 10.14, 8 (MySQL/MariaDB): recoveries, worked a batch at a time by a claim, their
 * Idempotency-Key unique per webhook (compared byte for byte); and the operator audit trail
 * takes a recovery made from the CLI (an organization's webhook, no platform key).
 */
export class DeliveryRecovery1796420000000 implements MigrationInterface {
  name = 'DeliveryRecovery1796420000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE delivery_recoveries (
      id int NOT NULL AUTO_INCREMENT,
      webhook_id int NOT NULL,
      idempotency_key varchar(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
      request_hash varchar(64) NOT NULL,
      since datetime(3) NOT NULL,
      until datetime(3) NOT NULL,
      requested_at datetime(3) NOT NULL,
      deliveries int NOT NULL,
      after_created_at datetime(3) NULL,
      after_id int NULL,
      claim_token varchar(32) NULL,
      claimed_until datetime(3) NULL,
      done_at datetime(3) NULL,
      UNIQUE INDEX uq_delivery_recoveries_idempotency (webhook_id, idempotency_key),
      INDEX ix_delivery_recoveries_done (done_at),
      PRIMARY KEY (id),
      CONSTRAINT fk_delivery_recoveries_webhook FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`ALTER TABLE operator_audit_entries
      MODIFY platform_key_id int NULL,
      MODIFY platform_key_name varchar(255) NULL,
      ADD webhook varchar(64) NULL`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DELETE FROM operator_audit_entries WHERE platform_key_id IS NULL');
    await db.query(`ALTER TABLE operator_audit_entries
      DROP COLUMN webhook,
      MODIFY platform_key_id int NOT NULL,
      MODIFY platform_key_name varchar(255) NOT NULL`);
    await db.query('DROP TABLE delivery_recoveries');
  }
}
