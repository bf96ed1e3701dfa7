import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 10.16, 10.17, 10.18 (MySQL/MariaDB): a webhook's receiver authentication (what
 * reads show, as JSON, and its secret, the OAuth client secret or the TLS private key, sealed
 * with its key id), whether its deliveries go in order, and an event's trace context (its trace
 * id, the span of its acceptance that every attempt's span hangs from, `tracestate` as received).
 * Events written before have none: theirs are derived from their id when read (derivedTrace).
 */
export class ReceiversAsCompaniesRunThem1796440000000 implements MigrationInterface {
  name = 'ReceiversAsCompaniesRunThem1796440000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE webhooks
      ADD auth text NULL,
      ADD auth_secret text NULL,
      ADD auth_secret_key_id varchar(16) NULL,
      ADD ordered tinyint NOT NULL DEFAULT 0`);
    await db.query(
      'ALTER TABLE events ADD trace_id varchar(32) NULL, ADD trace_span_id varchar(16) NULL, ADD trace_state varchar(512) NULL',
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('ALTER TABLE events DROP COLUMN trace_id, DROP COLUMN trace_span_id, DROP COLUMN trace_state');
    await db.query('ALTER TABLE webhooks DROP COLUMN auth, DROP COLUMN auth_secret, DROP COLUMN auth_secret_key_id, DROP COLUMN ordered');
  }
}
