import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/api.md 3, 8: platform keys an operator can manage (MySQL/MariaDB): an expiry, the last
 * use, the organizations a key is restricted to, and the operator audit trail of their changes.
 */
export class PlatformKeyScopes1796100000000 implements MigrationInterface {
  name = 'PlatformKeyScopes1796100000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE platform_keys
      ADD scoped tinyint NOT NULL DEFAULT 0,
      ADD expires_at datetime(3) NULL,
      ADD last_used_at datetime(3) NULL`);
    await db.query(`CREATE TABLE platform_key_organizations (
      platform_key_id int NOT NULL,
      organization_id int NOT NULL,
      PRIMARY KEY (platform_key_id, organization_id),
      INDEX ix_platform_key_organizations_organization (organization_id),
      CONSTRAINT fk_platform_key_organizations_key FOREIGN KEY (platform_key_id) REFERENCES platform_keys (id) ON DELETE CASCADE ON UPDATE NO ACTION,
      CONSTRAINT fk_platform_key_organizations_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
    await db.query(`CREATE TABLE operator_audit_entries (
      id int NOT NULL AUTO_INCREMENT,
      at datetime(3) NOT NULL,
      action varchar(32) NOT NULL,
      platform_key_id int NOT NULL,
      platform_key_name varchar(255) NOT NULL,
      organizations text NULL,
      PRIMARY KEY (id)
    ) ENGINE=InnoDB`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE operator_audit_entries');
    await db.query('DROP TABLE platform_key_organizations');
    await db.query('ALTER TABLE platform_keys DROP COLUMN scoped, DROP COLUMN expires_at, DROP COLUMN last_used_at');
  }
}
