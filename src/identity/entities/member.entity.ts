import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { OrganizationEntity } from './organization.entity';
import { UserEntity } from './user.entity';

export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

/** One row per (organization, user) pair. */
@Entity('members')
@Index('ix_members_user', ['userId'])
export class MemberEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'int' })
  organizationId: number;

  @PrimaryColumn({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ type: 'simple-enum', enum: ROLES })
  role: Role;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'fk_members_organization' })
  organization?: OrganizationEntity;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_members_user' })
  user?: UserEntity;
}
