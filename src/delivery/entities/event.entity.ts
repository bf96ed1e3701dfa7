import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { OrganizationEntity } from '../../identity/entities/organization.entity';

/**
 * An event the platform API handed in (docs/api.md 10.1). `payload` holds the request body every
 * attempt sends, byte for byte, sealed by SecretBox like the secrets (docs/api.md 10.8): a JSON
 * column only because it is the one type of both dialects that holds 256 KiB (MariaDB: LONGTEXT).
 */
@Entity('events')
@Index('uq_events_idempotency', ['organizationId', 'idempotencyKey'], { unique: true })
@Index('ix_events_created', ['createdAt'])
export class EventEntity {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id: string;

  @Column({ name: 'organization_id', type: 'int' })
  organizationId: number;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  /** Compared byte for byte (BinaryIdempotencyKeys1796200000000; SQLite's default already does). */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255, nullable: true, collation: 'utf8mb4_bin' })
  idempotencyKey: string | null;

  /** SHA-256 of the request, to tell a retry from another request under the same key. */
  @Column({ name: 'request_hash', type: 'varchar', length: 64 })
  requestHash: string;

  @Column({ type: 'json' })
  payload: unknown;

  /** The body's size in bytes, which the dispatcher holds in memory while its deliveries are in flight (null: written before it was kept). */
  @Column({ name: 'body_bytes', type: 'int', nullable: true })
  bodyBytes: number | null;

  @Column({ name: 'created_at', type: 'datetime', precision: 3 })
  createdAt: Date;

  /** Its trace id (docs/api.md 10.17), 32 hex digits: the producer's, or a new one; null: written before traces were kept. */
  @Column({ name: 'trace_id', type: 'varchar', length: 32, nullable: true })
  traceId: string | null;

  /** The span of its acceptance, which every attempt's span hangs from; null: written before traces were kept. */
  @Column({ name: 'trace_span_id', type: 'varchar', length: 16, nullable: true })
  traceSpanId: string | null;

  /** The producer's `tracestate`, passed on to every attempt as received. */
  @Column({ name: 'trace_state', type: 'varchar', length: 512, nullable: true })
  traceState: string | null;

  @ManyToOne(() => OrganizationEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'organization_id', foreignKeyConstraintName: 'fk_events_organization' })
  organization?: OrganizationEntity;
}
