import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const OPERATOR_AUDIT_ACTIONS = ['platform_key.created', 'platform_key.revoked', 'delivery.recovered'] as const;
export type OperatorAuditAction = (typeof OPERATOR_AUDIT_ACTIONS)[number];

/**
 * One change an operator made through the CLI (docs/api.md 8), written in the transaction of
 * the change. Apart from audit_entries, which records what an organization's people do to its
 * webhooks (an organization and a webhook on every row): a platform key's changes belong to no
 * organization, and an operator is none of an organization's people. The key's name is copied,
 * so the entry reads the same whatever happens to the key; `organizations` is the key's list as
 * JSON (null: every organization), or the one organization whose `webhook` a recovery was for
 * (`webhook recover`, docs/api.md 10.14; the organization's own trail records it too, actor
 * null). Never a token. No foreign key and no retention: the trail outlives what it names, and
 * operator changes are few.
 */
@Entity('operator_audit_entries')
export class OperatorAuditEntryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'datetime', precision: 3 })
  at: Date;

  @Column({ type: 'varchar', length: 32 })
  action: OperatorAuditAction;

  @Column({ name: 'platform_key_id', type: 'int', nullable: true })
  platformKeyId: number | null;

  @Column({ name: 'platform_key_name', type: 'varchar', length: 255, nullable: true })
  platformKeyName: string | null;

  @Column({ type: 'text', nullable: true })
  organizations: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  webhook: string | null;
}
