import { MigrationInterface, QueryRunner } from 'typeorm';

/** docs/api.md 10.9: the audit trail (MySQL/MariaDB). */
export class AuditTrail1795900000000 implements MigrationInterface {
  name = 'AuditTrail1795900000000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE TABLE audit_entries (
      id int NOT NULL AUTO_INCREMENT,
      organization_id int NOT NULL,
      at datetime(3) NOT NULL,
      actor_user_id int NOT NULL,
      action varchar(32) NOT NULL,
      webhook varchar(64) NOT NULL,
      fields varchar(512) NOT NULL,
      INDEX ix_audit_entries_organization (organization_id, id),
      INDEX ix_audit_entries_at (at),
      PRIMARY KEY (id),
      CONSTRAINT fk_audit_entries_organization FOREIGN KEY (organization_id) REFERENCES organizations (id) ON DELETE CASCADE ON UPDATE NO ACTION
    ) ENGINE=InnoDB`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query('DROP TABLE audit_entries');
  }
}
