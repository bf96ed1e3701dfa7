import { Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { OrganizationEntity } from './organization.entity';
import { PlatformKeyEntity } from './platform-key.entity';

/**
 * One organization a restricted platform key may send events for. A join table rather than a
 * list in a column: the foreign keys keep it true (an organization that does not exist cannot
 * be named, and a deleted one leaves every key's list with it).
 */
@Entity('platform_key_organizations')
@Index('ix_platform_key_organizations_organization', ['organizationId'])
export class PlatformKeyOrganizationEntity {
  @PrimaryColumn({ name: 'platform_key_id', type: 'int' })
  platformKeyId: number;

  @PrimaryColumn({ name: 'organization_id', type: 'int' })
  organizationId: number;

  @ManyToOne(() => PlatformKeyEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'platform_key_id', foreignKeyConstraintName: 'fk_platform_key_organizations_key' })
  platformKey?: PlatformKeyEntity;

  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'fk_platform_key_organizations_organization' })
  organization?: OrganizationEntity;
}
