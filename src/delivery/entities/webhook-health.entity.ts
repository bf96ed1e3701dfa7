import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { WebhookEntity } from '../../webhooks/entities/webhook.entity';

/**
 * What the dispatcher knows of a webhook's endpoint (docs/api.md 10.10), shared by every
 * instance: the run of failed attempts since the last success (for disabling), the circuit
 * breaker, and the rate limiter's next free slot. No row: a healthy webhook never limited.
 */
@Entity('webhook_health')
export class WebhookHealthEntity {
  @PrimaryColumn({ name: 'webhook_id', type: 'int' })
  webhookId: number;

  /** The first failed attempt since the last successful one (or since it was enabled). */
  @Column({ name: 'failing_since', type: 'datetime', precision: 3, nullable: true })
  failingSince: Date | null;

  @Column({ name: 'failed_attempts', type: 'int', default: 0 })
  failedAttempts: number;

  /** Consecutive attempts that failed by timeout or connection failure. */
  @Column({ name: 'breaker_failures', type: 'int', default: 0 })
  breakerFailures: number;

  /** Null: closed. Else attempts are held back until then, when one probes. */
  @Column({ name: 'breaker_open_until', type: 'datetime', precision: 3, nullable: true })
  breakerOpenUntil: Date | null;

  /** The rate limiter's next free slot (GCRA's theoretical arrival time). */
  @Column({ name: 'rate_next_at', type: 'datetime', precision: 3, nullable: true })
  rateNextAt: Date | null;

  @OneToOne(() => WebhookEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'fk_webhook_health_webhook' })
  webhook?: WebhookEntity;
}
