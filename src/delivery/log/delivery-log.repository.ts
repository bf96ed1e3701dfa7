import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database';
import { Column, rowReader } from '../../database/row-reader';
import type { SqlValue } from '../../database/sql-executor';
import { SqlDialect, sqlTimestamp } from '../../database/sql-dialect';
import type { Transaction } from '../../database/unit-of-work';
import type { DeliveryState } from '../delivery.model';
import { HEAD_OF_ORDER } from '../order-head';

// The Database executor: a page of the log is one indexed range scan in the log's order, whatever
// its filters (ix_deliveries_webhook_created, or the index of the state and type filters given,
// the times bounding its range); test/delivery/delivery-log-plan.e2e-spec.ts checks MariaDB's
// plan at 200 000 deliveries.

const readState = Column.member<DeliveryState>();
const readDelivery = rowReader({
  id: Column.int,
  state: readState,
  attempts: Column.int,
  createdAt: Column.moment,
  nextAttemptAt: Column.nullable(Column.moment),
  lastAttemptAt: Column.nullable(Column.moment),
  lastDurationMs: Column.nullable(Column.int),
  lastStatus: Column.nullable(Column.int),
  lastError: Column.nullable(Column.text),
  eventId: Column.text,
  eventType: Column.text,
  eventCreatedAt: Column.moment,
  traceId: Column.nullable(Column.text),
});
const readAttempt = rowReader({
  at: Column.moment,
  durationMs: Column.int,
  status: Column.nullable(Column.int),
  error: Column.nullable(Column.text),
});

/** A delivery as the log reads it. */
export type DeliveryRow = ReturnType<typeof readDelivery>;
export type AttemptRow = ReturnType<typeof readAttempt>;

const COLUMNS = `d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt, e.trace_id AS traceId`;

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
  constructor(private readonly db: Database) {}

  /** Up to `limit` deliveries of the webhook that pass the filters, newest first, after `after` when given. */
  async page(webhookId: number, filters: LogFilters, after: LogPosition | undefined, limit: number): Promise<DeliveryRow[]> {
    const shape: PageShape = {
      state: filters.state !== null,
      type: filters.type !== null,
      since: filters.since !== null,
      until: filters.until !== null,
      after: after !== undefined,
    };
    const rows = await this.db.select(pageSql(shape, this.db.dialect), pageParams(webhookId, filters, after, limit));
    return rows.map(readDelivery);
  }

  async findOne(webhookId: number, id: number): Promise<DeliveryRow | undefined> {
    const [row] = await this.db.select(
      `SELECT ${COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.webhook_id = ? AND d.id = ?`,
      [webhookId, id],
    );
    return row && readDelivery(row);
  }

  /** The id of the head of the webhook's order (docs/api.md 10.18), if it has a pending delivery. */
  async headOf(webhookId: number): Promise<number | undefined> {
    const [row] = await this.db.select(HEAD_OF_ORDER, [webhookId]);
    return row && Column.int(row.id);
  }

  /** The delivery's newest `limit` attempts, newest first (a range of ix_delivery_attempts_delivery read backwards). */
  async attempts(deliveryId: number, limit: number): Promise<AttemptRow[]> {
    const rows = await this.db.select(
      'SELECT at, duration_ms AS durationMs, status, error FROM delivery_attempts WHERE delivery_id = ? ORDER BY id DESC LIMIT ?',
      [deliveryId, limit],
    );
    return rows.map(readAttempt);
  }

  /**
   * The state of the webhook's delivery `id`, its row locked until the caller's transaction ends
   * (a replay's: DeliveryReplayService); undefined when the webhook has no such delivery.
   */
  async lockState(tx: Transaction, webhookId: number, id: number): Promise<DeliveryState | undefined> {
    const [row] = await tx.select(`SELECT state FROM deliveries WHERE id = ? AND webhook_id = ?${tx.dialect.forUpdate}`, [id, webhookId]);
    return row && readState(row.state);
  }
}
