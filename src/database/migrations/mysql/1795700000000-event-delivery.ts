import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 3 and 10: platform keys, events, deliveries and their attempts (MySQL/MariaDB). */
export class EventDelivery1795700000000 implements MigrationInterface {
  name = 'EventDelivery1795700000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE platform_keys (
      id int NOT NULL AUTO_INCREMENT,
      name varchar(255) NOT NULL,
      token_hash varchar(64) NOT NULL,
      revoked_at datetime(3) NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      UNIQUE INDEX uq_platform_keys_token_hash (token_hash),
      PRIMARY KEY (id)
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE events (
      id varchar(32) NOT NULL,
      organization_id int NOT NULL,
      type varchar(64) NOT NULL,
      idempotency_key varchar(255) NULL,
      request_hash varchar(64) NOT NULL,
      payload json NOT NULL,
      created_at datetime(3) NOT NULL,
      INDEX ix_events_created (created_at),
      UNIQUE INDEX uq_events_idempotency (organization_id, idempotency_key),
      PRIMARY KEY (id),
      CONSTRAINT fk_events_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE deliveries (
      id int NOT NULL AUTO_INCREMENT,
      event_id varchar(32) NOT NULL,
      organization_id int NOT NULL,
      webhook_id int NULL,
      state enum ('pending', 'succeeded', 'failed', 'cancelled') NOT NULL,
      attempts int NOT NULL DEFAULT '0',
      retry_from int NOT NULL DEFAULT '0',
      next_attempt_at datetime(3) NULL,
      claim_token varchar(32) NULL,
      last_attempt_at datetime(3) NULL,
      last_duration_ms int NULL,
      last_status int NULL,
      last_error varchar(32) NULL,
      created_at datetime(3) NOT NULL,
      INDEX ix_deliveries_event (event_id),
      INDEX ix_deliveries_webhook (webhook_id, id),
      INDEX ix_deliveries_webhook_state (webhook_id, state, id),
      INDEX ix_deliveries_due (state, next_attempt_at),
      PRIMARY KEY (id),
      CONSTRAINT fk_deliveries_event FOREIGN KEY (event_id) REFERENCES events (id) ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT fk_deliveries_webhook FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE SET NULL ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE delivery_attempts (
      id int NOT NULL AUTO_INCREMENT,
      delivery_id int NOT NULL,
      at datetime(3) NOT NULL,
      duration_ms int NOT NULL,
      status int NULL,
      error varchar(32) NULL,
      INDEX ix_delivery_attempts_delivery (delivery_id, id),
      PRIMARY KEY (id),
      CONSTRAINT fk_delivery_attempts_delivery FOREIGN KEY (delivery_id) REFERENCES deliveries (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of ['delivery_attempts', 'deliveries', 'events', 'platform_keys']) await db.query(`DROP TABLE ${table}`);
  }
}
