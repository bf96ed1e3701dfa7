import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { EventField } from '../../event-types/event-types';
import { WebhookSourceEntity } from './webhook-source.entity';

/** The column of each per-event URL: the one place the code names them (landed migrations keep their own copy). */
export const EVENT_URL_COLUMNS = {
  'transaction.created': 'transaction_created_url',
  'transaction.updated': 'transaction_updated_url',
  'transaction.completed': 'transaction_completed_url',
  'card.updated': 'card_updated_url',
  'user.updated': 'user_updated_url',
} as const satisfies Record<EventField, string>;

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

  @Column({ name: EVENT_URL_COLUMNS['transaction.created'], type: 'varchar', length: 2048, nullable: true })
  transactionCreatedUrl: string | null;

  @Column({ name: EVENT_URL_COLUMNS['transaction.updated'], type: 'varchar', length: 2048, nullable: true })
  transactionUpdatedUrl: string | null;

  @Column({ name: EVENT_URL_COLUMNS['transaction.completed'], type: 'varchar', length: 2048, nullable: true })
  transactionCompletedUrl: string | null;

  @Column({ name: EVENT_URL_COLUMNS['card.updated'], type: 'varchar', length: 2048, nullable: true })
  cardUpdatedUrl: string | null;

  @Column({ name: EVENT_URL_COLUMNS['user.updated'], type: 'varchar', length: 2048, nullable: true })
  userUpdatedUrl: string | null;

  @Column({ type: 'varchar', length: 256 })
  secret: string;

  @Column({ name: 'secret_key_id', type: 'varchar', length: 16 })
  secretKeyId: string;

  /** After a rotation (docs/api.md 10.7): the secret before, signing beside the new one until it expires. */
  @Column({ name: 'previous_secret', type: 'varchar', length: 256, nullable: true })
  previousSecret: string | null;

  @Column({ name: 'previous_secret_key_id', type: 'varchar', length: 16, nullable: true })
  previousSecretKeyId: string | null;

  @Column({ name: 'previous_secret_expires_at', type: 'datetime', precision: 3, nullable: true })
  previousSecretExpiresAt: Date | null;

  /** Deliveries per second across every instance (docs/api.md 10.10); null: no limit. */
  @Column({ name: 'rate_limit', type: 'int', nullable: true })
  rateLimit: number | null;

  /** The event types it takes (docs/api.md 10.13): the JSON array as sent; null: every type. */
  @Column({ name: 'event_types', type: 'varchar', length: 255, nullable: true })
  eventTypes: string | null;

  /** Its custom headers' names as sent, a JSON array, for reads (docs/api.md 10.15). */
  @Column({ name: 'header_names', type: 'text', nullable: true })
  headerNames: string | null;

  /** Its custom headers, names and values, sealed by SecretBox like the secrets. */
  @Column({ type: 'text', nullable: true })
  headers: string | null;

  @Column({ name: 'headers_key_id', type: 'varchar', length: 16, nullable: true })
  headersKeyId: string | null;

  /** How it authenticates to its receiver (docs/api.md 10.16), as reads show it: JSON; null: by the signature alone. */
  @Column({ type: 'text', nullable: true })
  auth: string | null;

  /** The OAuth client secret or the TLS private key, sealed by SecretBox like the secrets. */
  @Column({ name: 'auth_secret', type: 'text', nullable: true })
  authSecret: string | null;

  @Column({ name: 'auth_secret_key_id', type: 'varchar', length: 16, nullable: true })
  authSecretKeyId: string | null;

  /** Its deliveries go one at a time, in order (docs/api.md 10.18). */
  @Column({ type: 'boolean', default: false })
  ordered: boolean;

  /** Set when the service disabled the webhook for failing for days (docs/api.md 10.10). */
  @Column({ name: 'disabled_at', type: 'datetime', precision: 3, nullable: true })
  disabledAt: Date | null;

  @CreateDateColumn({ name: 'created_at' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at' })
  updatedAt: Date;

  @ManyToOne(() => WebhookSourceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'source_id', foreignKeyConstraintName: 'fk_webhooks_source' })
  source?: WebhookSourceEntity;
}
