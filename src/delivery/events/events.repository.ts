import { Injectable } from '@nestjs/common';
import type { AuditChange } from '../../audit/audit.model';
import { AuditRepository } from '../../audit/audit.repository';
import type { SealedSecret } from '../../crypto/secret-box';
import { Database } from '../../database/database';
import type { SqlExecutor, SqlValue } from '../../database/sql-executor';
import { isForeignKeyViolation, isUniqueViolation } from '../../database/database-errors';
import { dateOf, sqlTimestamp } from '../../database/sql-dialect';
import { WebhookSql } from '../../webhooks/webhook-sql';
import type { Handoff } from '../dispatch-signal';
import { sealedToJson } from './sealed-json';

// The Database executor: ingest is a measured hot path (W6): two statements in one transaction,
// sent to MySQL as one query (Database.atomically).

export interface NewEvent {
  readonly id: string;
  readonly organizationId: number;
  readonly type: string;
  readonly idempotencyKey: string | undefined;
  readonly requestHash: string;
  readonly payload: SealedSecret;
  readonly createdAt: Date;
}

/** Which webhooks of the organization an event goes to. */
export interface FanOut {
  /** Deliveries inserted already claimed by this instance's dispatcher (the common path of POST /events). */
  readonly handoff?: Handoff;
  /** Only the enabled webhooks but this one (webhook.disabled, docs/api.md 10.10); by default every webhook. */
  readonly onlyEnabledExcept?: number;
}

/** An event found under an idempotency key. */
export interface KeyedEvent {
  readonly id: string;
  readonly requestHash: string;
  readonly deliveryCount: number;
  readonly createdAt: Date;
}

const ENABLED = WebhookSql.enabled;
/** A webhook the dispatcher may take at once: enabled, without a rate limit, its breaker closed. */
const HANDED_OVER = `${ENABLED} AND ${WebhookSql.rateLimit} IS NULL AND h.breaker_open_until IS NULL`;

/**
 * The fan-out's INSERT … SELECT: one delivery per webhook of the organization that takes the
 * event's type (docs/api.md 10.13), pending and due now, or failed at once for a disabled
 * webhook (docs/api.md 10.10); with a handoff, those the dispatcher may take at once are
 * inserted claimed by it (due again at the lease's end). Its parameters: fanOutParams.
 */
function fanOutSql({ handoff, onlyEnabledExcept }: FanOut): string {
  const due = handoff ? `CASE WHEN NOT (${ENABLED}) THEN NULL WHEN ${HANDED_OVER} THEN ? ELSE ? END` : `CASE WHEN ${ENABLED} THEN ? END`;
  const token = handoff ? `CASE WHEN ${HANDED_OVER} THEN ? END` : 'NULL';
  return `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT ?, ?, ?, ${WebhookSql.id}, CASE WHEN ${ENABLED} THEN 'pending' ELSE 'failed' END, 0, ${due}, ${token}, ?
      FROM ${WebhookSql.withSource}${handoff ? ` LEFT JOIN webhook_health h ON h.webhook_id = ${WebhookSql.id}` : ''}
     WHERE ${WebhookSql.organization} = ? AND ${WebhookSql.takes}${onlyEnabledExcept === undefined ? '' : ` AND ${ENABLED} AND ${WebhookSql.id} <> ?`}`;
}

function fanOutParams(event: NewEvent, { handoff, onlyEnabledExcept }: FanOut): SqlValue[] {
  const at = sqlTimestamp(event.createdAt);
  const due = handoff ? [sqlTimestamp(handoff.leaseUntil), at] : [at];
  return [
    event.id,
    event.organizationId,
    event.type,
    ...due,
    ...(handoff ? [handoff.token] : []),
    at,
    event.organizationId,
    ...WebhookSql.takesParams(event.type),
    ...(onlyEnabledExcept === undefined ? [] : [onlyEnabledExcept]),
  ];
}

@Injectable()
export class EventsRepository {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditRepository,
  ) {}

  /**
   * The event and its deliveries in one transaction of two statements. The fan-out's INSERT …
   * SELECT reads the source row and the webhooks with shared locks (InnoDB does so for the
   * SELECT of an INSERT … SELECT): a webhook write, which locks the source row exclusively, is
   * wholly before or after it, and events of one organization do not wait for each other.
   * 'duplicate' when the idempotency key is taken; 'unknown organization' when there is no such
   * organization (its foreign key says so).
   */
  insert(event: NewEvent, fanOut: FanOut = {}): Promise<{ deliveries: number } | 'duplicate' | 'unknown organization'> {
    return this.db
      .atomically(this.statements(event, fanOut))
      .then(([, deliveries]) => ({ deliveries }))
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) return 'duplicate' as const;
        if (isForeignKeyViolation(error)) return 'unknown organization' as const;
        throw error;
      });
  }

  /** The same, inside the caller's transaction: an event written with the change that causes it (docs/api.md 10.12). */
  async insertIn(tx: SqlExecutor, event: NewEvent, fanOut: FanOut = {}): Promise<{ deliveries: number }> {
    const [insertEvent, insertDeliveries] = this.statements(event, fanOut);
    await tx.execute(insertEvent.sql, insertEvent.params);
    return { deliveries: await tx.execute(insertDeliveries.sql, insertDeliveries.params) };
  }

  /** The event's row, then its deliveries. */
  private statements(event: NewEvent, fanOut: FanOut): { sql: string; params: SqlValue[] }[] {
    return [
      {
        sql: `INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, payload, created_at)
              VALUES (?, ?, ?, ?, ?, ?, ?)`,
        params: [
          event.id,
          event.organizationId,
          event.type,
          event.idempotencyKey ?? null,
          event.requestHash,
          sealedToJson(event.payload),
          sqlTimestamp(event.createdAt),
        ],
      },
      { sql: fanOutSql(fanOut), params: fanOutParams(event, fanOut) },
    ];
  }

  /**
   * A `webhook.test` event and its one delivery, to that webhook only (docs/api.md 10.7), and
   * its audit entry, in one transaction; the delivery's id.
   */
  insertForWebhook(event: NewEvent, webhookId: number, change: AuditChange): Promise<number> {
    const at = sqlTimestamp(event.createdAt);
    return this.db.transaction(async (tx) => {
      await tx.execute('INSERT INTO events (id, organization_id, type, request_hash, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        event.id,
        event.organizationId,
        event.type,
        event.requestHash,
        sealedToJson(event.payload),
        at,
      ]);
      const deliveryId = await tx.insert(
        `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
        [event.id, event.organizationId, event.type, webhookId, at, at],
      );
      await this.audit.record(tx, change, event.createdAt);
      return deliveryId;
    });
  }

  async findByIdempotencyKey(organizationId: number, key: string): Promise<KeyedEvent | undefined> {
    const [row] = await this.db.select<{ id: string; requestHash: string; deliveryCount: number; createdAt: Date | string }>(
      `SELECT e.id AS id, e.request_hash AS requestHash, e.created_at AS createdAt,
              (SELECT COUNT(*) FROM deliveries d WHERE d.event_id = e.id) AS deliveryCount
         FROM events e WHERE e.organization_id = ? AND e.idempotency_key = ?`,
      [organizationId, key],
    );
    return row && { ...row, deliveryCount: Number(row.deliveryCount), createdAt: dateOf(row.createdAt) };
  }

  /** Frees an expired idempotency key (older than its window) for a new event. */
  async forgetIdempotencyKey(eventId: string): Promise<void> {
    await this.db.execute('UPDATE events SET idempotency_key = NULL WHERE id = ?', [eventId]);
  }

  /** The organization's pending deliveries (docs/api.md 10.10's backpressure): one range of ix_deliveries_webhook_due per webhook. */
  async countPending(organizationId: number): Promise<number> {
    const [row] = await this.db.select<{ pending: unknown }>(
      `SELECT COUNT(*) AS pending FROM ${WebhookSql.withSource} JOIN deliveries d ON d.webhook_id = ${WebhookSql.id} AND d.state = 'pending'
        WHERE ${WebhookSql.organization} = ?`,
      [organizationId],
    );
    return Number(row?.pending ?? 0);
  }

  /**
   * Retention (docs/api.md 10.8): deletes up to `batch` events created before `before`, with
   * their deliveries and attempts (foreign keys cascade). Returns how many events went.
   */
  async pruneBatch(before: Date, batch: number): Promise<number> {
    const rows = await this.db.select<{ id: string }>(`SELECT id FROM events WHERE created_at < ? ORDER BY created_at LIMIT ${batch}`, [
      sqlTimestamp(before),
    ]);
    if (rows.length === 0) return 0;
    return this.db.execute(
      `DELETE FROM events WHERE id IN (${rows.map(() => '?').join(', ')})`,
      rows.map((row) => row.id),
    );
  }
}
