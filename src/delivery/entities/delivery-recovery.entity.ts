import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookEntity } from '../../webhooks/entities/webhook.entity';

/**
 * A recovery (docs/api.md 10.14): the failed deliveries of one webhook created in [since, until)
 * are made pending again, a batch at a time, by whichever instance holds its claim
 * (`claim_token` until `claimed_until`); `after_created_at` and `after_id` are the last delivery
 * done, so that a recovery taken over after a crash goes on where it stopped and none is done
 * twice. `deliveries` is the count the request answered. Under an Idempotency-Key the unique
 * index (webhook, key) decides races on any number of instances. Done rows go a day after.
 */
@Entity('delivery_recoveries')
@Index('uq_delivery_recoveries_idempotency', ['webhookId', 'idempotencyKey'], { unique: true })
@Index('ix_delivery_recoveries_done', ['doneAt'])
export class DeliveryRecoveryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'webhook_id', type: 'int' })
  webhookId: number;

  /** Compared byte for byte, as the events' keys (docs/api.md 10.1). */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true, collation: 'utf8mb4_bin' })
  idempotencyKey: string | null;

  /** SHA-256 of the window as sent, to tell a retry from another request under the same key. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash: string;

  @Column({ type: 'datetime', precision: 3 })
  since: Date;

  @Column({ type: 'datetime', precision: 3 })
  until: Date;

  @Column({ name: 'requested_at', type: 'datetime', precision: 3 })
  requestedAt: Date;

  @Column({ type: 'int' })
  deliveries: number;

  @Column({ name: 'after_created_at', type: 'datetime', precision: 3, nullable: true })
  afterCreatedAt: Date | null;

  @Column({ name: 'after_id', type: 'int', nullable: true })
  afterId: number | null;

  @Column({ name: 'claim_token', type: 'varchar', length: 32, nullable: true })
  claimToken: string | null;

  @Column({ name: 'claimed_until', type: 'datetime', precision: 3, nullable: true })
  claimedUntil: Date | null;

  @Column({ name: 'done_at', type: 'datetime', precision: 3, nullable: true })
  doneAt: Date | null;

  @ManyToOne(() => WebhookEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'fk_delivery_recoveries_webhook' })
  webhook?: WebhookEntity;
}
