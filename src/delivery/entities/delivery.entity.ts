import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookEntity } from '../../webhooks/entities/webhook.entity';
import { DELIVERY_STATES, DeliveryState } from '../delivery.model';
import { EventEntity } from './event.entity';

/**
 * One event for one webhook (docs/api.md 10.2, 10.5): the queue's row. A pending delivery is due
 * at `next_attempt_at`; a claimed one carries its claimer's `claim_token` and a
 * `next_attempt_at` moved to the end of its lease, so that it is due again if the claimer dies.
 * The log reads a webhook's deliveries newest first by `created_at`, then id, through one index
 * per combination of its filters (docs/api.md 10.7); a recovery reads a range of the failed ones.
 */
@Entity('deliveries')
@Index('ix_deliveries_due', ['state', 'nextAttemptAt'])
@Index('ix_deliveries_webhook_lane_due', ['webhookId', 'state', 'lane', 'nextAttemptAt'])
@Index('ix_deliveries_webhook_created', ['webhookId', 'createdAt', 'id'])
@Index('ix_deliveries_webhook_state_created', ['webhookId', 'state', 'createdAt', 'id'])
@Index('ix_deliveries_webhook_type_created', ['webhookId', 'eventType', 'createdAt', 'id'])
@Index('ix_deliveries_webhook_state_type_created', ['webhookId', 'state', 'eventType', 'createdAt', 'id'])
@Index('ix_deliveries_event', ['eventId'])
export class DeliveryEntity {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ name: 'event_id', type: 'varchar', length: 32 })
  eventId: string;

  @Column({ name: 'organization_id', type: 'int' })
  organizationId: number;

  /** Null once the webhook is deleted (its open deliveries were cancelled with it). */
  @Column({ name: 'webhook_id', type: 'int', nullable: true })
  webhookId: number | null;

  /** Its event's type, kept beside it for the log's `type` filter (docs/api.md 10.7); set by the fan-out. */
  @Column({ name: 'event_type', type: 'varchar', length: 64, default: '' })
  eventType: string;

  @Column({ type: 'simple-enum', enum: DELIVERY_STATES })
  state: DeliveryState;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** The attempts made before the last replay: the retry schedule starts again after them. */
  @Column({ name: 'retry_from', type: 'int', default: 0 })
  retryFrom: number;

  /** 0: a first attempt, a test or a replay; 1: a scheduled retry or a recovered delivery (docs/api.md 10.10). */
  @Column({ type: 'int', default: 0 })
  lane: number;

  @Column({ name: 'next_attempt_at', type: 'datetime', precision: 3, nullable: true })
  nextAttemptAt: Date | null;

  @Column({ name: 'claim_token', type: 'varchar', length: 32, nullable: true })
  claimToken: string | null;

  @Column({ name: 'last_attempt_at', type: 'datetime', precision: 3, nullable: true })
  lastAttemptAt: Date | null;

  @Column({ name: 'last_duration_ms', type: 'int', nullable: true })
  lastDurationMs: number | null;

  @Column({ name: 'last_status', type: 'int', nullable: true })
  lastStatus: number | null;

  @Column({ name: 'last_error', type: 'varchar', length: 32, nullable: true })
  lastError: string | null;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  @ManyToOne(() => EventEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_id', foreignKeyConstraintName: 'fk_deliveries_event' })
  event?: EventEntity;

  @ManyToOne(() => WebhookEntity, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'fk_deliveries_webhook' })
  webhook?: WebhookEntity;
}
