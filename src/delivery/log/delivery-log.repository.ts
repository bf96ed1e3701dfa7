import { Injectable } from '@nestjs/common';
import type { Actor } from '../../audit/audit.model';
import { AuditRepository } from '../../audit/audit.repository';
import { Database } from '../../database/database';
import type { SqlValue } from '../../database/sql-executor';
import { SqlDialect, sqlTimestamp } from '../../database/sql-dialect';
import type { DeliveryState } from '../delivery.model';
import { DeliveryQueue } from '../dispatch/delivery-queue';

// The Database executor: a page of the log is one indexed range scan in the log's order, whatever
// its filters (ix_deliveries_webhook_created, or the index of the state and type filters given,
// the times bounding its range); test/delivery/delivery-log-plan.e2e-spec.ts checks MariaDB's
// plan at 200 000 deliveries.

/** A delivery as the log reads it (datetimes as the driver gives them). */
export interface DeliveryRow {
  id: number;
  state: DeliveryState;
  attempts: number;
  createdAt: Date | string;
  nextAttemptAt: Date | string | null;
  lastAttemptAt: Date | string | null;
  lastDurationMs: number | null;
  lastStatus: number | null;
  lastError: string | null;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date | string;
}

export interface AttemptRow {
  at: Date | string;
  durationMs: number;
  status: number | null;
  error: string | null;
}

const COLUMNS = `d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt`;

/** The log's filters (docs/api.md 10.7): null, or the value; `since` inclusive, `until` exclusive. */
export interface LogFilters {
  readonly state: DeliveryState | null;
  readonly type: string | null;
  readonly since: Date | null;
  readonly until: Date | null;
}

/** Where the page before ended: the creation time (ms) and id of its last delivery; the next page starts after them. */
export type LogPosition = readonly [createdAtMs: number, id: number];

/** Which parts a page's statement has: the filters given, and a position to start after (its LIMIT is bound). */
export type PageShape = { readonly [K in keyof LogFilters]: boolean } & { readonly after: boolean };

/** The index whose range a page reads: the one of the state and type filters given, in the log's order. */
export const pageIndex = ({ state, type }: Pick<PageShape, 'state' | 'type'>): string =>
  `ix_deliveries_webhook${state ? '_state' : ''}${type ? '_type' : ''}_created`;

/**
 * A page of a webhook's log, newest first (`created_at`, then id, both descending): the deliveries
 * are taken first (a derived table with its LIMIT, so that no planner starts from the events and
 * sorts), then joined to their events. The position bound is written as one range
 * (`created_at <= ?`) and a filter on it, so that both dialects read it as a range of the index.
 * Parameters: pageParams.
 */
export function pageSql({ state, type, since, until, after }: PageShape, dialect: SqlDialect): string {
  const where = [
    'webhook_id = ?',
    ...(state ? ['state = ?'] : []),
    ...(type ? ['event_type = ?'] : []),
    ...(since ? ['created_at >= ?'] : []),
    ...(until ? ['created_at < ?'] : []),
    ...(after ? ['created_at <= ? AND (created_at < ? OR id < ?)'] : []),
  ];
  return `SELECT ${COLUMNS}
    FROM (SELECT * FROM deliveries${dialect.indexedBy(pageIndex({ state, type }))} WHERE ${where.join(' AND ')}
           ORDER BY created_at DESC, id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.created_at DESC, d.id DESC`;
}

export function pageParams(
  webhookId: number,
  { state, type, since, until }: LogFilters,
  after: LogPosition | undefined,
  limit: number,
): SqlValue[] {
  const at = after && sqlTimestamp(new Date(after[0]));
  return [
    webhookId,
    ...(state === null ? [] : [state]),
    ...(type === null ? [] : [type]),
    ...(since === null ? [] : [sqlTimestamp(since)]),
    ...(until === null ? [] : [sqlTimestamp(until)]),
    ...(after === undefined ? [] : [at!, at!, after[1]]),
    limit,
  ];
}

@Injectable()
export class DeliveryLogRepository {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditRepository,
    private readonly queue: DeliveryQueue,
  ) {}

  /** Up to `limit` deliveries of the webhook that pass the filters, newest first, after `after` when given. */
  page(webhookId: number, filters: LogFilters, after: LogPosition | undefined, limit: number): Promise<DeliveryRow[]> {
    const shape: PageShape = {
      state: filters.state !== null,
      type: filters.type !== null,
      since: filters.since !== null,
      until: filters.until !== null,
      after: after !== undefined,
    };
    return this.db.select<DeliveryRow & Record<string, unknown>>(
      pageSql(shape, this.db.dialect),
      pageParams(webhookId, filters, after, limit),
    );
  }

  async findOne(webhookId: number, id: number): Promise<DeliveryRow | undefined> {
    const [row] = await this.db.select<DeliveryRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.webhook_id = ? AND d.id = ?`,
      [webhookId, id],
    );
    return row;
  }

  attempts(deliveryId: number): Promise<AttemptRow[]> {
    return this.db.select<AttemptRow & Record<string, unknown>>(
      'SELECT at, duration_ms AS durationMs, status, error FROM delivery_attempts WHERE delivery_id = ? ORDER BY id',
      [deliveryId],
    );
  }

  /**
   * A replay (docs/api.md 10.7): a succeeded or failed delivery is pending again, due now, in
   * the lane of first attempts (someone is waiting for it); a pending one not in flight is
   * brought forward; either way the retry schedule starts again, and the audit entry is written
   * in the same transaction. What the delivery's state was, or undefined when the webhook has no
   * such delivery (nothing is written for those, nor for a cancelled one); 'disabled' when the
   * webhook is, read under a share lock of its row, so that a disabling is wholly before the
   * replay or after it (and fails the pending delivery).
   */
  replay(
    webhook: { id: number; name: string; organizationId: number },
    id: number,
    actor: Actor,
    now: Date,
  ): Promise<DeliveryState | 'disabled' | undefined> {
    return this.db.transaction(async (tx) => {
      const [owner] = await tx.select<{ disabledAt: unknown }>(
        `SELECT disabled_at AS disabledAt FROM webhooks WHERE id = ?${this.db.dialect.forShare}`,
        [webhook.id],
      );
      if (owner === undefined) return undefined;
      if (owner.disabledAt !== null) return 'disabled';
      const [row] = await tx.select<{ state: DeliveryState }>(
        `SELECT state FROM deliveries WHERE id = ? AND webhook_id = ?${this.db.dialect.forUpdate}`,
        [id, webhook.id],
      );
      if (row === undefined || row.state === 'cancelled') return row?.state;
      await this.queue.requeue(tx, [id], now, 'fresh');
      await this.audit.record(
        tx,
        {
          organizationId: webhook.organizationId,
          actorUserId: actor.userId,
          action: 'delivery.retried',
          webhook: webhook.name,
          fields: [],
        },
        now,
      );
      return row.state;
    });
  }
}
