import { Injectable } from '@nestjs/common';
import type { SealedSecret } from '../../crypto/secret-box';
import { Column, rowReader } from '../../database/row-reader';
import { placeholders, type Row, type SqlValue, varying } from '../../database/sql-executor';
import { sqlTimestamp } from '../../database/sql-dialect';
import type { Transaction } from '../../database/unit-of-work';
import { TEST_EVENT } from '../../event-types/event-types';
import { targetOfRow, WebhookSql, WebhookTarget } from '../../webhooks/webhook-sql';
import { sealedFromJson } from '../events/sealed-json';
import { HEAD_OF_ORDER } from '../order-head';
import { derivedTrace, type EventTrace } from '../event-trace';
import { HealthSql } from '../webhook-health-sql';
import { DispatchDatabase } from './dispatch-database';
import { DeliveryTransitions, LANE } from './delivery-transitions';
import { EndpointHealthRepository } from './endpoint-health.repository';
import { type LaneRead, lanesToRead, lockedBy, planClaim, slotsOf } from './scheduling/claim-plan';
import type { ClaimAsk, DueWebhook, Work } from './scheduling/dispatch-scheduler';
import type { QueueReadings, QueueStats } from './queue-readings';

// The Database executor: the claim needs FOR UPDATE SKIP LOCKED, which TypeORM's API does not give,
// and every statement here is on the dispatcher's hot path (docs/performance.md). Statements
// over a list of ids are VaryingSql: sent as text, never prepared (docs/api.md 9).

/** The claim's transaction: its locking reads take no gap locks, which would hold off every insert of a new due delivery. */
export const CLAIM_TRANSACTION = { readCommitted: true } as const;

/** A delivery this instance holds the claim of: what the scheduler needs, and what its attempt needs besides. */
export interface ClaimedDelivery extends Work {
  /** Attempts made before this one. */
  readonly attempts: number;
  /** Attempts made before the last replay (the schedule starts again after them). */
  readonly retryFrom: number;
  /** When it became due (its first attempt's, or its retry's time). */
  readonly dueAt: number;
  readonly eventId: string;
  readonly eventType: string;
  /** The event body's size: what holding it costs (DELIVERY_BUFFER_MB). */
  readonly bodyBytes: number;
  /** The rate limiter's slot: not sent before then. */
  readonly notBefore?: number;
  /** The end of the slot's grace (slotGraceMs): not sent after then, but given back for a later slot. */
  readonly notAfter?: number;
}

/** An event body as stored: sealed, bound to its event (docs/api.md 10.8). */
export interface StoredBody {
  readonly eventId: string;
  readonly organizationId: number;
  readonly payload: SealedSecret;
  /** Its trace (docs/api.md 10.17): as written, or derived from its id for an event written before traces were kept. */
  readonly trace: EventTrace;
}

/** A body of unknown size (written before sizes were kept) counts as the largest event 10.1 allows. */
const UNKNOWN_BODY_BYTES = 256 * 1024;

const time = Column.nullable(Column.millis);
const oldestDue = (lane: number) =>
  `(SELECT d.next_attempt_at FROM deliveries d WHERE d.webhook_id = ${WebhookSql.id} AND d.state = 'pending' AND d.lane = ${lane}
     ORDER BY d.next_attempt_at LIMIT 1)`;

/**
 * Every due webhook: its oldest due delivery of each lane is one seek of
 * ix_deliveries_webhook_lane_due, whatever its backlog. A disabled webhook is due only when a
 * delivery of its is left pending: one whose claimer died under a live lease at the disabling
 * (its lease ran out since), to be failed (DeliveryTransitions.failLeftPending). It reads the
 * rows of `webhooks` it read already, and its seeks find nothing otherwise: the scan costs what
 * it did per enabled webhook.
 */
export const SCAN = `SELECT * FROM (
  SELECT ${WebhookSql.id} AS webhookId, ${WebhookSql.organization} AS organizationId, ${WebhookSql.rateLimit} AS rateLimit,
         ${WebhookSql.ordered} AS ordered,
         ${HealthSql.breakerOpenUntil} AS breakerOpenUntil, ${HealthSql.rateNextAt} AS rateNextAt,
         ${oldestDue(LANE.fresh)} AS freshDueAt, ${oldestDue(LANE.retry)} AS retryDueAt,
         CASE WHEN ${WebhookSql.enabled} THEN 0 ELSE 1 END AS disabled
    FROM ${WebhookSql.withSource} ${HealthSql.joinedOn(WebhookSql.id)}) due
 WHERE due.freshDueAt <= ? OR due.retryDueAt <= ?`;

/** The operator's view of the queue (DeliveryQueue.stats): the scan's due webhooks seek one row each. */
export const STATS = `SELECT (SELECT COUNT(*) FROM deliveries WHERE state = 'pending') AS pending,
       (SELECT MIN(CASE WHEN scan.freshDueAt <= ? AND (scan.retryDueAt IS NULL OR scan.freshDueAt < scan.retryDueAt) THEN scan.freshDueAt
                        ELSE scan.retryDueAt END)
          FROM (${SCAN}) scan WHERE scan.disabled = 0 AND (scan.breakerOpenUntil IS NULL OR scan.breakerOpenUntil <= ?)) AS oldestDueAt,
       (SELECT COUNT(*) FROM ${WebhookSql.withSource} ${HealthSql.joinedWhereKept(WebhookSql.id)}
         WHERE ${WebhookSql.enabled} AND ${HealthSql.breakerOpen}) AS breakersOpen`;

const readDue = rowReader({
  webhookId: Column.int,
  organizationId: Column.int,
  rateLimit: Column.nullable(Column.int),
  ordered: Column.positive,
  breakerOpenUntil: time,
  rateNextAt: time,
  freshDueAt: time,
  retryDueAt: time,
  disabled: Column.positive,
});
const readStats = rowReader({ pending: Column.int, oldestDueAt: time, breakersOpen: Column.int });
const readDueDelivery = rowReader({
  id: Column.int,
  webhookId: Column.int,
  lane: Column.int,
  dueAt: Column.millis,
  attempts: Column.int,
  retryFrom: Column.int,
  organizationId: Column.int,
  eventId: Column.text,
  eventType: Column.text,
  bodyBytes: Column.nullable(Column.int),
});
const readBody = rowReader({
  id: Column.text,
  organizationId: Column.int,
  payload: (value) => sealedFromJson(value),
  traceId: Column.nullable(Column.text),
  traceSpanId: Column.nullable(Column.text),
  traceState: Column.nullable(Column.text),
});
/**
 * One lane of one webhook: its due deliveries, oldest first, skipping those other claims hold,
 * with what an attempt needs of the delivery and its event (read by scalar subqueries, so that
 * the locking read locks the deliveries only: two instances claim deliveries of one event for
 * different webhooks at once). Parameters: webhook, lane, now, limit.
 */
const DUE_COLUMNS = `d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes`;
const dueOfLane = (skipLocked: string) =>
  `SELECT ${DUE_COLUMNS}
     FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.lane = ? AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ?${skipLocked}`;
/** An ordered webhook's due test pings, which its order does not hold (docs/api.md 10.18). Parameters: webhook, now, limit. */
const duePings = (skipLocked: string) =>
  `SELECT ${DUE_COLUMNS}
     FROM deliveries d WHERE d.webhook_id = ? AND d.event_type = '${TEST_EVENT}' AND d.state = 'pending' AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ?${skipLocked}`;
/**
 * The head of its order (HEAD_OF_ORDER), read without a lock (the claim holds the webhook's
 * shared-state row, so no other claim reads it meanwhile), locked if it is still pending and due:
 * not waiting for a retry, and held by no live claim. Parameters: id, now.
 */
const headIfDue = (forUpdate: string) =>
  `SELECT ${DUE_COLUMNS} FROM deliveries d WHERE d.id = ? AND d.state = 'pending' AND d.next_attempt_at <= ?${forUpdate}`;

/**
 * The database as the queue (docs/api.md 10.5, 10.6, 10.10), as the dispatcher reads it: the scan
 * for due webhooks, the claim (per webhook and lane, for what the scheduler has room for; its
 * SELECTs skip the rows other instances are claiming, FOR UPDATE SKIP LOCKED, and SQLite has one
 * writer: at least once, never twice at the same time), the event bodies (once per event) and
 * the webhooks as stored when an attempt starts. Ingest hands the deliveries of new events over
 * already claimed (DispatchSignal). Every change of a delivery's state is DeliveryTransitions'.
 */
@Injectable()
export class DeliveryQueue implements QueueReadings {
  constructor(
    private readonly db: DispatchDatabase,
    private readonly health: EndpointHealthRepository,
    private readonly transitions: DeliveryTransitions,
  ) {}

  /**
   * Every enabled webhook with a delivery due at `now`, with when each lane's oldest became due;
   * and the disabled webhooks with a pending delivery that no live claim holds (`disabled`).
   */
  async scan(now: number): Promise<{ due: DueWebhook[]; disabled: number[] }> {
    const at = sqlTimestamp(new Date(now));
    const rows = (await this.db.select(SCAN, [at, at])).map(readDue);
    const dueBy = (due: number | null) => (due !== null && due <= now ? due : null);
    return {
      due: rows
        .filter((row) => !row.disabled)
        .map(({ disabled: _, ...row }) => ({ ...row, freshDueAt: dueBy(row.freshDueAt), retryDueAt: dueBy(row.retryDueAt) })),
      disabled: rows.filter((row) => row.disabled).map(({ webhookId }) => webhookId),
    };
  }

  /**
   * Claims what each ask wants of a webhook's due deliveries, in the caller's transaction (one
   * for the claim, at READ COMMITTED: CLAIM_TRANSACTION), so that a database gone before the commit
   * leaves nothing claimed: reads and locks what the claim's rules need (the shared state of the
   * rate-limited and probed webhooks; the due deliveries, skipping those other claims hold), asks
   * the rules what to take (planClaim: rate slots, the probe, `choose`'s memory budget for their
   * bodies), and writes what they say.
   */
  async claim(
    tx: Transaction,
    asks: readonly ClaimAsk[],
    now: number,
    leaseMs: number,
    token: string,
    choose: (candidates: ClaimedDelivery[]) => ClaimedDelivery[],
  ): Promise<ClaimedDelivery[]> {
    const leaseEndsAt = now + leaseMs;
    const states = await this.health.lockShared(tx, lockedBy(asks));
    const slots = slotsOf(asks, states, now);
    const candidates = await this.dueOf(tx, lanesToRead(asks, slots), now, leaseEndsAt);
    const { taken, writes } = planClaim({ asks, states, slots, candidates, now, leaseEndsAt, choose });
    await this.transitions.claim(
      tx,
      taken.map(({ id }) => id),
      leaseEndsAt,
      token,
    );
    for (const write of writes) await this.health.writeShared(tx, write);
    return taken;
  }

  /** The sealed bodies of these events (docs/api.md 10.8), each read once for all its deliveries. */
  async bodies(eventIds: readonly string[]): Promise<StoredBody[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.db.select(
      varying(
        `SELECT id, organization_id AS organizationId, payload, trace_id AS traceId, trace_span_id AS traceSpanId, trace_state AS traceState
           FROM events WHERE id IN (${placeholders(eventIds.length)})`,
      ),
      eventIds,
    );
    return rows.flatMap((row) => {
      try {
        const { id, organizationId, payload, traceId, traceSpanId, traceState } = readBody(row);
        const trace: EventTrace =
          traceId === null || traceSpanId === null
            ? derivedTrace(id)
            : { traceId, spanId: traceSpanId, ...(traceState !== null && { traceState }) };
        return [{ eventId: id, organizationId, payload, trace }];
      } catch {
        // A row that no longer parses fails its deliveries alone (docs/api.md 10.10): their body is missing.
        return [];
      }
    });
  }

  /** Each webhook as stored now, by id (docs/api.md 10.10: what an attempt uses is current); a deleted one is absent. */
  async targets(webhookIds: readonly number[]): Promise<Map<number, (eventType: string) => WebhookTarget | undefined>> {
    if (webhookIds.length === 0) return new Map();
    const rows = await this.db.select(
      varying(
        `SELECT ${WebhookSql.id} AS webhookId, ${WebhookSql.targetColumns} FROM ${WebhookSql.withSource}
          WHERE ${WebhookSql.id} IN (${placeholders(webhookIds.length)})`,
      ),
      webhookIds,
    );
    return new Map(rows.map((row) => [Column.int(row.webhookId), (eventType: string) => targetOfRow(row, eventType)]));
  }

  /**
   * The queue for the operator's metrics (docs/api.md 9), in one statement: its depth (pending
   * deliveries), when the oldest due delivery that may be attempted became due (the scan's own
   * view, less the webhooks whose breaker holds their deliveries back: a receiver that has been
   * down for days is not a queue falling behind), and the enabled webhooks whose breaker is
   * not closed.
   */
  async stats(now: number): Promise<QueueStats> {
    const at = sqlTimestamp(new Date(now));
    const [row] = await this.db.select(STATS, [at, at, at, at]);
    return readStats(row);
  }

  /**
   * The due deliveries of each lane to read, oldest first, locked (skipping those other claims
   * hold): the lanes and test pings in one UNION ALL; each ordered webhook's head in two
   * statements of its own.
   */
  private async dueOf(tx: Transaction, lanes: readonly LaneRead[], now: number, leaseEndsAt: number): Promise<ClaimedDelivery[]> {
    const at = sqlTimestamp(new Date(now));
    const rows: Row[] = [];
    const unioned = lanes.filter(({ lane }) => lane !== 'head');
    if (unioned.length > 0) {
      const skipLocked = tx.dialect.forUpdateSkipLocked;
      rows.push(
        ...(await tx.select(
          varying(tx.dialect.unionAll(unioned.map(({ lane }) => (lane === 'pings' ? duePings(skipLocked) : dueOfLane(skipLocked))))),
          unioned.flatMap(({ webhookId, lane, count }): SqlValue[] =>
            lane === 'pings' ? [webhookId, at, count] : [webhookId, LANE[lane as keyof typeof LANE], at, count],
          ),
        )),
      );
    }
    for (const { webhookId } of lanes.filter(({ lane }) => lane === 'head')) {
      const [head] = await tx.select(HEAD_OF_ORDER, [webhookId]);
      if (head !== undefined) rows.push(...(await tx.select(headIfDue(tx.dialect.forUpdate), [Column.int(head.id), at])));
    }
    return rows.map((row) => claimedOf(readDueDelivery(row), leaseEndsAt));
  }
}

function claimedOf(row: ReturnType<typeof readDueDelivery>, leaseEndsAt: number): ClaimedDelivery {
  return {
    id: row.id,
    webhookId: row.webhookId,
    organizationId: row.organizationId,
    retry: row.lane === LANE.retry,
    leaseEndsAt,
    dueAt: row.dueAt,
    attempts: row.attempts,
    retryFrom: row.retryFrom,
    eventId: row.eventId,
    eventType: row.eventType,
    bodyBytes: row.bodyBytes ?? UNKNOWN_BODY_BYTES,
  };
}
