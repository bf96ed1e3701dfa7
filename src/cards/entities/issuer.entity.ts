import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A card issuer (docs/api.md 3, 6.1). Its kind is `stored` (the operator stores each card's
 * provisioning credentials) or the card processor it speaks to, which has a base URL and the
 * program's credentials, sealed by SecretBox (ciphertext and key id). The kind is text rather than
 * an enum: a processor added later needs no migration.
 */
@Entity('issuers')
export class IssuerEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 255 })
  name: string;

  @Column({ type: 'varchar', length: 16, default: 'stored' })
  kind: string;

  @Column({ name: 'base_url', type: 'varchar', length: 2048, nullable: true })
  baseUrl: string | null;

  @Column({ type: 'varchar', length: 2048, nullable: true })
  credentials: string | null;

  @Column({ name: 'credentials_key_id', type: 'varchar', length: 16, nullable: true })
  credentialsKeyId: string | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;
}
