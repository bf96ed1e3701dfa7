import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { WebhookSourceEntity } from './webhook-source.entity';

/**
 * A webhook: one column per URL (NULL = not set), each the WHATWG-normalized href; the signing
 * secret sealed by SecretBox.
 */
@Entity('webhooks')
@Index('uq_webhooks_source_name', ['sourceId', 'name'], { unique: true })
export class WebhookEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'source_id', type: 'int' })
  sourceId: number;

  @Column({ type: 'varchar', length: 64 })
  name: string;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  @Column({ name: 'transaction_created_url', type: 'varchar', length: 2048, nullable: true })
  transactionCreatedUrl: string | null;

  @Column({ name: 'transaction_updated_url', type: 'varchar', length: 2048, nullable: true })
  transactionUpdatedUrl: string | null;

  @Column({ name: 'transaction_completed_url', type: 'varchar', length: 2048, nullable: true })
  transactionCompletedUrl: string | null;

  @Column({ name: 'card_updated_url', type: 'varchar', length: 2048, nullable: true })
  cardUpdatedUrl: string | null;

  @Column({ name: 'user_updated_url', type: 'varchar', length: 2048, nullable: true })
  userUpdatedUrl: string | null;

  @Column({ type: 'varchar', length: 256 })
  secret: string;

  @Column({ name: 'secret_key_id', type: 'varchar', length: 16 })
  secretKeyId: string;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt: Date;

  @ManyToOne(() => WebhookSourceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'source_id', foreignKeyConstraintName: 'fk_webhooks_source' })
  source?: WebhookSourceEntity;
}
