import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { OrganizationEntity } from '../../identity/entities/organization.entity';
import { UserEntity } from '../../identity/entities/user.entity';
import { IssuerEntity } from './issuer.entity';

export const CARD_STATUSES = ['active', 'frozen', 'closed'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

/** The card networks a wallet is told of (docs/api.md 6.1). */
export const CARD_NETWORKS = ['visa', 'mastercard'] as const;
export type CardNetwork = (typeof CARD_NETWORKS)[number];

/**
 * A card. With a stored issuer it carries push-provisioning credentials: the id in clear, the
 * secret sealed by SecretBox (ciphertext and key id). With a processor issuer it carries the
 * processor's token for it and what a wallet shows of it (docs/api.md 6.1).
 */
@Entity('cards')
@Index('ix_cards_user_status_created', ['userId', 'status', 'createdAt', 'id'])
@Index('ix_cards_organization', ['organizationId'])
@Index('ix_cards_issuer', ['issuerId'])
export class CardEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'organization_id', type: 'int' })
  organizationId: number;

  @Column({ type: 'simple-enum', enum: CARD_STATUSES })
  status: CardStatus;

  @Column({ name: 'issuer_id', type: 'int', nullable: true })
  issuerId: number | null;

  @Column({ name: 'provisioning_id', type: 'varchar', length: 255, nullable: true })
  provisioningId: string | null;

  @Column({ name: 'provisioning_secret', type: 'varchar', length: 1024, nullable: true })
  provisioningSecret: string | null;

  @Column({ name: 'provisioning_secret_key_id', type: 'varchar', length: 16, nullable: true })
  provisioningSecretKeyId: string | null;

  @Column({ name: 'processor_token', type: 'varchar', length: 255, nullable: true })
  processorToken: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  title: string | null;

  @Column({ name: 'cardholder_name', type: 'varchar', length: 128, nullable: true })
  cardholderName: string | null;

  @Column({ name: 'primary_account_suffix', type: 'varchar', length: 4, nullable: true })
  primaryAccountSuffix: string | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  network: string | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_cards_user' })
  user?: UserEntity;

  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'fk_cards_organization' })
  organization?: OrganizationEntity;

  @ManyToOne(() => IssuerEntity)
  @JoinColumn({ name: 'issuer_id', foreignKeyConstraintName: 'fk_cards_issuer' })
  issuer?: IssuerEntity;
}
