import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * The credential of the internal platform API (docs/api.md 3, 10.1): it sends events for every
 * organization. Stored only as its SHA-256; revocable; no expiry.
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

  @Column({ name: 'revoked_at', type: 'datetime', precision: 3, nullable: true })
  revokedAt: Date | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;
}
