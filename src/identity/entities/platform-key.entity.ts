import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The credential of the internal platform API (docs/api.md 3, 10.1). Stored only as its
 * SHA-256; revocable. By default it sends events for every organization and never expires; an
 * operator may restrict it to some organizations (`scoped`, and the rows of
 * platform_key_organizations) and give it an expiry.
 */
@Entity('platform_keys')
@Index('uq_platform_keys_token_hash', ['tokenHash'], { unique: true })
export class PlatformKeyEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ name: 'token_hash', type: 'varchar', length: 64 })
  tokenHash: string;

  /**
   * True: the key sends events only for its rows in platform_key_organizations. A flag of its
   * own rather than "no rows means every organization": when the last of a restricted key's
   * organizations is deleted (the rows go with it, ON DELETE CASCADE), the key must be left
   * with none, not with all.
   */
  @Column({ type: 'boolean', default: false })
  scoped: boolean;

  @Column({ name: 'expires_at', type: 'datetime', precision: 3, nullable: true })
  expiresAt: Date | null;

  /** Written at most about once a minute (auth/platform-key-uses.ts), so it lags by up to that. */
  @Column({ name: 'last_used_at', type: 'datetime', precision: 3, nullable: true })
  lastUsedAt: Date | null;

  @Column({ name: 'revoked_at', type: 'datetime', precision: 3, nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;
}
