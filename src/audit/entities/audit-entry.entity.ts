import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { OrganizationEntity } from '../../identity/entities/organization.entity';

/**
 * One change an organization's people made (docs/api.md 10.9), written in the transaction of
 * the change: to a webhook, or a card added to a wallet (6.1). `fields` is a JSON array of member
 * names (`url`, `transaction.created`, `apple`, …): never a URL, a secret or a token.
 */
@Entity('audit_entries')
@Index('ix_audit_entries_organization', ['organizationId', 'id'])
@Index('ix_audit_entries_at', ['at'])
export class AuditEntryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'organization_id', type: 'int' })
  organizationId: number;

  @Column({ type: 'datetime', precision: 3 })
  at: Date;

  /** Null for what the service does itself (it disables a webhook that has failed for days). */
  @Column({ name: 'actor_user_id', type: 'int', nullable: true })
  actorUserId: number | null;

  @Column({ type: 'varchar', length: 32 })
  action: string;

  /** The webhook changed; null for an entry on a card (card.provisioned). */
  @Column({ type: 'varchar', length: 64, nullable: true })
  webhook: string | null;

  /** The card provisioned (docs/api.md 6.1); null for an entry on a webhook. */
  @Column({ name: 'card_id', type: 'int', nullable: true })
  cardId: number | null;

  @Column({ type: 'varchar', length: 512 })
  fields: string;

  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'fk_audit_entries_organization' })
  organization?: OrganizationEntity;
}
