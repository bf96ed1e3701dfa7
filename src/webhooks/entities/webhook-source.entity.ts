import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { OrganizationEntity } from '../../identity/entities/organization.entity';

/**
 * An organization's webhook source: exists exactly while the organization has at least one
 * webhook. Writers lock this row, which serializes the writes of one organization.
 */
@Entity('webhook_sources')
@Index('uq_webhook_sources_organization', ['organizationId'], { unique: true })
export class WebhookSourceEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'organization_id', type: 'int' })
  organizationId: number;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'fk_webhook_sources_organization' })
  organization?: OrganizationEntity;
}
