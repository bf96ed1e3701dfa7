import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 3 and 5: identity, cards and webhooks (MySQL / MariaDB). */
export class InitialSchema1795342000000 implements MigrationInterface {
  name = 'InitialSchema1795342000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE organizations (
      id int NOT NULL AUTO_INCREMENT,
      name varchar(255) NOT NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      PRIMARY KEY (id)
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE users (
      id int NOT NULL AUTO_INCREMENT,
      email varchar(320) NOT NULL,
      name varchar(255) NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      PRIMARY KEY (id),
      UNIQUE INDEX uq_users_email (email)
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE members (
      organization_id int NOT NULL,
      user_id int NOT NULL,
      role enum ('owner', 'admin', 'member') NOT NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      PRIMARY KEY (organization_id, user_id),
      INDEX ix_members_user (user_id),
      CONSTRAINT fk_members_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT fk_members_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE sessions (
      token_hash varchar(64) NOT NULL,
      user_id int NOT NULL,
      active_organization_id int NULL,
      expires_at datetime(3) NOT NULL,
      revoked_at datetime(3) NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      PRIMARY KEY (token_hash),
      INDEX ix_sessions_user (user_id),
      CONSTRAINT fk_sessions_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT fk_sessions_organization FOREIGN KEY (active_organization_id) REFERENCES organizations (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE access_tokens (
      token_hash varchar(64) NOT NULL,
      kind enum ('wallet_extension') NOT NULL,
      user_id int NOT NULL,
      expires_at datetime(3) NOT NULL,
      revoked_at datetime(3) NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      PRIMARY KEY (token_hash),
      INDEX ix_access_tokens_user (user_id),
      CONSTRAINT fk_access_tokens_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE issuers (
      id int NOT NULL AUTO_INCREMENT,
      name varchar(255) NOT NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      PRIMARY KEY (id)
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE cards (
      id int NOT NULL AUTO_INCREMENT,
      user_id int NOT NULL,
      organization_id int NOT NULL,
      status enum ('active', 'frozen', 'closed') NOT NULL,
      issuer_id int NULL,
      provisioning_id varchar(255) NULL,
      provisioning_secret varchar(1024) NULL,
      provisioning_secret_key_id varchar(16) NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      PRIMARY KEY (id),
      INDEX ix_cards_user_status_created (user_id, status, created_at, id),
      INDEX ix_cards_organization (organization_id),
      INDEX ix_cards_issuer (issuer_id),
      CONSTRAINT fk_cards_user FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT fk_cards_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT fk_cards_issuer FOREIGN KEY (issuer_id) REFERENCES issuers (id) ON DELETE NO ACTION ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE webhook_sources (
      id int NOT NULL AUTO_INCREMENT,
      organization_id int NOT NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      PRIMARY KEY (id),
      UNIQUE INDEX uq_webhook_sources_organization (organization_id),
      CONSTRAINT fk_webhook_sources_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE webhooks (
      id int NOT NULL AUTO_INCREMENT,
      source_id int NOT NULL,
      name varchar(64) NOT NULL,
      url varchar(2048) NOT NULL,
      transaction_created_url varchar(2048) NULL,
      transaction_updated_url varchar(2048) NULL,
      transaction_completed_url varchar(2048) NULL,
      card_updated_url varchar(2048) NULL,
      user_updated_url varchar(2048) NULL,
      secret varchar(256) NOT NULL,
      secret_key_id varchar(16) NOT NULL,
      created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
      updated_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6),
      PRIMARY KEY (id),
      UNIQUE INDEX uq_webhooks_source_name (source_id, name),
      CONSTRAINT fk_webhooks_source FOREIGN KEY (source_id) REFERENCES webhook_sources (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
  }

  async down(db: QueryRunner): Promise<void> {
    for (const table of [
      'webhooks',
      'webhook_sources',
      'cards',
      'issuers',
      'access_tokens',
      'sessions',
      'members',
      'users',
      'organizations',
    ]) {
      await db.query(`DROP TABLE ${table}`);
    }
  }
}
