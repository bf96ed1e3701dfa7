import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 10.10 (MySQL/MariaDB): a webhook's rate limit and disabling; the delivery
 * feature's own row per webhook for the circuit breaker, the failure run and the rate limiter's
 * next slot; an index that finds a webhook's oldest due delivery in one seek (the fair claim);
 * audit entries without a person (the service disables a webhook itself).
 */
export class FairDelivery1796000000000 implements MigrationInterface {
  name = 'FairDelivery1796000000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE webhooks ADD rate_limit int NULL, ADD disabled_at datetime(3) NULL');
    await db.query(`CREATE TABLE webhook_health (
      webhook_id int NOT NULL,
      failing_since datetime(3) NULL,
      failed_attempts int NOT NULL DEFAULT 0,
      breaker_failures int NOT NULL DEFAULT 0,
      breaker_open_until datetime(3) NULL,
      rate_next_at datetime(3) NULL,
      PRIMARY KEY (webhook_id),
      CONSTRAINT fk_webhook_health_webhook FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query('CREATE INDEX ix_deliveries_webhook_due ON deliveries (webhook_id, state, next_attempt_at)');
    await db.query('ALTER TABLE audit_entries MODIFY actor_user_id int NULL');
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DELETE FROM audit_entries WHERE actor_user_id IS NULL');
    await db.query('ALTER TABLE audit_entries MODIFY actor_user_id int NOT NULL');
    await db.query('DROP INDEX ix_deliveries_webhook_due ON deliveries');
    await db.query('DROP TABLE webhook_health');
    await db.query('ALTER TABLE webhooks DROP COLUMN disabled_at, DROP COLUMN rate_limit');
  }
}
