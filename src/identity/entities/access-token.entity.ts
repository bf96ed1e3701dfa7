import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { UserEntity } from './user.entity';

export const ACCESS_TOKEN_KINDS = ['wallet_extension'] as const;
export type AccessTokenKind = (typeof ACCESS_TOKEN_KINDS)[number];

/** A bearer token for a non-browser client. Stored only as its SHA-256. */
@Entity('access_tokens')
@Index('ix_access_tokens_user', ['userId'])
export class AccessTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  @Column({ type: 'simple-enum', enum: ACCESS_TOKEN_KINDS })
  kind: AccessTokenKind;

  @Column({ name: 'user_id', type: 'int' })
  userId: number;

  @Column({ name: 'expires_at', type: 'datetime', precision: 3 })
  expiresAt: Date;

  @Column({ name: 'revoked_at', type: 'datetime', precision: 3, nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @ManyToOne(() => UserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'user_id', foreignKeyConstraintName: 'fk_access_tokens_user' })
  user?: UserEntity;
}
