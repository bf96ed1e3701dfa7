import { Injectable } from '@nestjs/common';
import type { SealedSecret } from '../../crypto/secret-box';
import type { SqlExecutor, SqlValue } from '../../database/sql-executor';
import { dateOf, sqlTimestamp } from '../../database/sql-dialect';
import { targetOfRow, WebhookSql, WebhookTarget } from '../../webhooks/webhook-sql';
import type { DeliveryState } from '../delivery.model';
import { sealedFromJson } from '../events/sealed-json';
import { DispatchDatabase } from './dispatch-database';
import type { EndpointHealth } from './endpoint-health';
import { EndpointHealthRepository, HEALTH_COLUMNS, healthOfRow } from './endpoint-health.repository';
import type { DueWebhook } from './fair-scheduler';
import { nextFreeSlot, rateSlots, RateSlots } from './rate-slots';

// The Database executor: the claim needs FOR UPDATE SKIP LOCKED, which TypeORM's API does not give,
// and every statement here is on the dispatcher's hot path (docs/performance.md).

/** A rate-limited webhook's slots are handed out this far ahead: claimed deliveries wait at most this for theirs. */
export const RATE_HORIZON_MS = 200;

/** A webhook with due deliveries, with what the dispatcher needs to share attempts fairly. */
export interface ScannedWebhook extends DueWebhook {
  readonly rateLimit: number | null;
  /** The breaker holds attempts back until then (null: closed); past it, one may probe. */
  readonly breakerOpenUntil: number | null;
  /** The rate limiter's next free slot (null: idle). */
  readonly rateNextAt: number | null;
}

/** What a claim asks of one webhook. */
export interface ClaimRequest {
  readonly webhookId: number;
  readonly count: number;
  /** The webhook's rate limit: its deliveries get send times from the shared limiter. */
  readonly rateLimit?: number;
  /** Its breaker's cool-down is over: one delivery probes it, unless another instance took the probe. */
  readonly probe?: boolean;
}

/** A delivery this instance holds the claim of, with what its attempt needs. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly webhookId: number;
  /** When the claim's lease ends (ms since the epoch): past it, another instance may claim the delivery. */
  readonly leaseEndsAt: number;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** Attempts made before the last replay (the schedule starts again after them). */
  readonly retryFrom: number;
  readonly organizationId: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly payload: SealedSecret;
  /** Undefined when the webhook is gone. */
  readonly target: WebhookTarget | undefined;
  /** The endpoint's health when the delivery was claimed. */
  readonly health: EndpointHealth;
  /** The rate limiter's slot: not sent before then. */
  readonly notBefore?: number;
  /** This attempt is the breaker's probe (its cool-down was over, and this claim took the probe). */
  readonly probe?: boolean;
}

/** How an attempt ends a claim: the delivery's new state and the attempt's record. */
export interface AttemptRecord {
  readonly state: DeliveryState;
  /** When the next attempt is due (pending), else null. */
  readonly nextAttemptAt: Date | null;
  readonly at: Date;
  readonly durationMs: number;
  readonly status: number | null;
  readonly error: string | null;
}

const list = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const time = (value: unknown): number | null => (value === null || value === undefined ? null : dateOf(value as Date | string).getTime());

/** Every due webhook: its oldest due delivery is one seek of ix_deliveries_webhook_due, whatever its backlog. */
const SCAN = `SELECT * FROM (
  SELECT ${WebhookSql.id} AS webhookId, ${WebhookSql.organization} AS organizationId, ${WebhookSql.rateLimit} AS rateLimit,
         h.breaker_open_until AS breakerOpenUntil, h.rate_next_at AS rateNextAt,
         (SELECT d.next_attempt_at FROM deliveries d WHERE d.webhook_id = ${WebhookSql.id} AND d.state = 'pending'
           ORDER BY d.next_attempt_at LIMIT 1) AS dueAt
    FROM ${WebhookSql.withSource} LEFT JOIN webhook_health h ON h.webhook_id = ${WebhookSql.id}
   WHERE ${WebhookSql.enabled}) due
 WHERE due.dueAt <= ?`;

/** The operator's view of the queue (DeliveryQueue.stats): the scan's due webhooks seek one row each. */
const STATS = `SELECT (SELECT COUNT(*) FROM deliveries WHERE state = 'pending') AS pending,
       (SELECT MIN(scan.dueAt) FROM (${SCAN}) scan WHERE scan.breakerOpenUntil IS NULL OR scan.breakerOpenUntil <= ?) AS oldestDueAt,
       (SELECT COUNT(*) FROM ${WebhookSql.withSource} JOIN webhook_health h ON h.webhook_id = ${WebhookSql.id}
         WHERE ${WebhookSql.enabled} AND h.breaker_open_until IS NOT NULL) AS breakersOpen`;

/** What an attempt needs: the delivery, its event, its webhook as stored now, its endpoint's health. */
const DETAIL = `SELECT d.id AS id, d.webhook_id AS webhookId, d.next_attempt_at AS leaseEndsAt, d.attempts AS attempts, d.retry_from AS retryFrom,
       d.organization_id AS organizationId, e.id AS eventId, e.type AS eventType, e.payload AS payload, ${HEALTH_COLUMNS}, ${WebhookSql.targetColumns}
  FROM deliveries d JOIN events e ON e.id = d.event_id
  ${WebhookSql.joinedOn('d.webhook_id')}
  LEFT JOIN webhook_health h ON h.webhook_id = d.webhook_id`;

/**
 * The database as the queue (docs/api.md 10.5, 10.6, 10.10). A claim moves a due delivery's
 * `next_attempt_at` to the end of a lease and stamps it with the claiming instance's token,
 * in a transaction whose SELECTs skip rows other instances are claiming (FOR UPDATE SKIP
 * LOCKED; SQLite has one writer). The claimer's outcome counts only while its token is still
 * there: a delivery whose lease ran out (its claimer died or hung) is due again and claimed
 * anew, and the late claimer's result is dropped. At least once, never twice at the same time.
 *
 * Claims are made per webhook, for as many deliveries as the dispatcher has room for, so that
 * no backlog of one webhook stands in front of another's (the fair scheduler decides the
 * counts); ingest hands the deliveries of new events over already claimed (DispatchSignal).
 */
@Injectable()
export class DeliveryQueue {
  constructor(
    private readonly db: DispatchDatabase,
    private readonly health: EndpointHealthRepository,
  ) {}

  /** Every enabled webhook with a delivery due at `now`. */
  async scan(now: number): Promise<ScannedWebhook[]> {
    const rows = await this.db.select<Record<string, unknown>>(SCAN, [sqlTimestamp(new Date(now))]);
    return rows.map((row) => ({
      webhookId: Number(row.webhookId),
      organizationId: Number(row.organizationId),
      dueAt: time(row.dueAt)!,
      rateLimit: row.rateLimit === null ? null : Number(row.rateLimit),
      breakerOpenUntil: time(row.breakerOpenUntil),
      rateNextAt: time(row.rateNextAt),
    }));
  }

  /**
   * Claims up to each request's count of a webhook's due deliveries, oldest first, and reads
   * what their attempts need, in one transaction: a database gone before the commit leaves
   * nothing claimed. A rate-limited webhook gets no more than the limiter's slots within
   * RATE_HORIZON_MS, each delivery with its send time; a probe is made only by the claim
   * that takes it.
   */
  claim(requests: readonly ClaimRequest[], now: number, leaseMs: number, token: string): Promise<ClaimedDelivery[]> {
    const leaseEndsAt = now + leaseMs;
    return this.db.transaction(
      async (tx) => {
        const slots = new Map<number, RateSlots>();
        for (const { webhookId, rateLimit, count } of requests) {
          if (rateLimit !== undefined)
            slots.set(webhookId, rateSlots(await this.health.lockRateSlot(tx, webhookId), now, rateLimit, count, RATE_HORIZON_MS));
        }
        const asks = requests.map((r) => ({ ...r, count: slots.get(r.webhookId)?.count ?? r.count })).filter((r) => r.count > 0);
        if (asks.length === 0) return [];
        const picked = await this.pickDue(tx, asks, now);
        const probes = new Set<number>();
        for (const { webhookId } of asks.filter((r) => r.probe && picked.has(r.webhookId))) {
          if (await this.health.takeProbe(tx, webhookId, now, leaseEndsAt)) probes.add(webhookId);
          else picked.delete(webhookId);
        }
        const ids = [...picked.values()].flat();
        if (ids.length === 0) return [];
        await tx.execute(`UPDATE deliveries SET next_attempt_at = ?, claim_token = ? WHERE id IN (${list(ids.length)})`, [
          sqlTimestamp(new Date(leaseEndsAt)),
          token,
          ...ids,
        ]);
        const notBefore = new Map<number, number>();
        for (const [webhookId, limiter] of slots) {
          const taken = picked.get(webhookId) ?? [];
          taken.forEach((id, i) => notBefore.set(id, limiter.start + i * limiter.intervalMs));
          if (taken.length > 0) await this.health.setRateSlot(tx, webhookId, nextFreeSlot(limiter, taken.length));
        }
        const rows = await tx.select<Record<string, unknown>>(`${DETAIL} WHERE d.id IN (${list(ids.length)})`, ids);
        return rows.map((row) => ({
          ...claimedOf(row),
          notBefore: notBefore.get(Number(row.id)),
          probe: probes.has(Number(row.webhookId)),
        }));
      },
      { readCommitted: true },
    );
  }

  /** The deliveries of these events that ingest inserted already claimed with `token` (docs/api.md 10.6). */
  async adopt(eventIds: readonly string[], token: string): Promise<ClaimedDelivery[]> {
    const rows = await this.db.select<Record<string, unknown>>(
      `${DETAIL} WHERE d.event_id IN (${list(eventIds.length)}) AND d.claim_token = ? AND d.state = 'pending'`,
      [...eventIds, token],
    );
    return rows.map(claimedOf);
  }

  /**
   * Ends claims with their attempts' outcomes, in one transaction for the batch: each delivery
   * still claimed with `token` gets its new state and its attempt's record; the others (their
   * lease ran out, or they were cancelled or failed meanwhile) are left as they are. The ids
   * that were recorded.
   */
  complete(outcomes: readonly { id: number; record: AttemptRecord }[], token: string): Promise<Set<number>> {
    return this.db.transaction(async (tx) => {
      const ids = outcomes.map(({ id }) => id);
      const held = await tx.select<{ id: number }>(
        `SELECT id FROM deliveries WHERE claim_token = ? AND state = 'pending' AND id IN (${list(ids.length)})${this.db.dialect.forUpdate}`,
        [token, ...ids],
      );
      const recorded = new Set(held.map((row) => Number(row.id)));
      const mine = outcomes.filter(({ id }) => recorded.has(id));
      if (mine.length === 0) return recorded;
      const cases = mine.map(() => 'WHEN ? THEN ?').join(' ');
      const column = (value: (record: AttemptRecord) => SqlValue) => mine.flatMap(({ id, record }) => [id, value(record)]);
      await tx.execute(
        `UPDATE deliveries SET state = CASE id ${cases} END, attempts = attempts + 1, next_attempt_at = CASE id ${cases} END, claim_token = NULL,
                last_attempt_at = CASE id ${cases} END, last_duration_ms = CASE id ${cases} END, last_status = CASE id ${cases} END,
                last_error = CASE id ${cases} END
          WHERE id IN (${list(mine.length)})`,
        [
          ...column((r) => r.state),
          ...column((r) => r.nextAttemptAt && sqlTimestamp(r.nextAttemptAt)),
          ...column((r) => sqlTimestamp(r.at)),
          ...column((r) => r.durationMs),
          ...column((r) => r.status),
          ...column((r) => r.error),
          ...mine.map(({ id }) => id),
        ],
      );
      await tx.execute(
        `INSERT INTO delivery_attempts (delivery_id, at, duration_ms, status, error) VALUES ${mine.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
        mine.flatMap(({ id, record }) => [id, sqlTimestamp(record.at), record.durationMs, record.status, record.error]),
      );
      return recorded;
    });
  }

  /** Gives claims back unattempted (held back, no room, shutdown): due at `now` for any instance. */
  async release(ids: readonly number[], token: string, now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.execute(
      `UPDATE deliveries SET next_attempt_at = ?, claim_token = NULL WHERE claim_token = ? AND state = 'pending' AND id IN (${list(ids.length)})`,
      [sqlTimestamp(new Date(now)), token, ...ids],
    );
  }

  /** Gives back every claim this instance still holds (shutdown). */
  async releaseAll(token: string, now: number): Promise<void> {
    await this.db.execute("UPDATE deliveries SET next_attempt_at = ?, claim_token = NULL WHERE claim_token = ? AND state = 'pending'", [
      sqlTimestamp(new Date(now)),
      token,
    ]);
  }

  /** Ends a claim without an attempt, its webhook gone: the delivery is cancelled. */
  async cancel(id: number, token: string): Promise<void> {
    await this.db.execute(
      "UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL, claim_token = NULL WHERE id = ? AND claim_token = ?",
      [id, token],
    );
  }

  /** docs/api.md 10.2: a deleted webhook's deliveries that have not succeeded are cancelled, in the deleting transaction. */
  async cancelPendingOf(tx: SqlExecutor, webhookId: number): Promise<void> {
    await tx.execute(
      "UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL, claim_token = NULL WHERE webhook_id = ? AND state = 'pending'",
      [webhookId],
    );
  }

  /**
   * docs/api.md 10.7, 10.14: deliveries sent again, in the caller's transaction (a replay, a
   * recovery's batch): a succeeded or failed one is pending again, due `now`, and a pending one
   * that no instance holds is brought forward; either way the retry schedule starts again after
   * the attempts already made. A cancelled one, or one in flight, is left as it is. The one
   * statement that brings a delivery back to the queue.
   */
  async requeue(tx: SqlExecutor, ids: readonly number[], now: Date): Promise<number> {
    if (ids.length === 0) return 0;
    return tx.execute(
      `UPDATE deliveries SET state = 'pending', next_attempt_at = ?, retry_from = attempts
        WHERE id IN (${list(ids.length)}) AND (state IN ('succeeded', 'failed') OR (state = 'pending' AND claim_token IS NULL))`,
      [sqlTimestamp(now), ...ids],
    );
  }

  /**
   * docs/api.md 10.10: a disabled webhook's pending deliveries are failed, without a further
   * attempt (`lastAttempt` null; the attempt log keeps what was tried), in the disabling
   * transaction; a replay after it is enabled sends them again.
   */
  async failPendingOf(tx: SqlExecutor, webhookId: number): Promise<void> {
    await tx.execute(
      `UPDATE deliveries SET state = 'failed', next_attempt_at = NULL, claim_token = NULL,
              last_attempt_at = NULL, last_duration_ms = NULL, last_status = NULL, last_error = NULL
        WHERE webhook_id = ? AND state = 'pending'`,
      [webhookId],
    );
  }

  /**
   * The queue for the operator's metrics (docs/api.md 9), in one statement: its depth (pending
   * deliveries), when the oldest due delivery that may be attempted became due (the scan's own
   * view, less the webhooks whose breaker holds their deliveries back: a receiver that has been
   * down for days is not a queue falling behind), and the enabled webhooks whose breaker is
   * not closed.
   */
  async stats(now: number): Promise<{ pending: number; oldestDueAt: number | null; breakersOpen: number }> {
    const at = sqlTimestamp(new Date(now));
    const [row] = await this.db.select<{ pending: unknown; oldestDueAt: unknown; breakersOpen: unknown }>(STATS, [at, at]);
    return { pending: Number(row.pending), oldestDueAt: time(row.oldestDueAt), breakersOpen: Number(row.breakersOpen) };
  }

  /** Each asked webhook's due deliveries, oldest first, up to its count, skipping those other claims hold: ids by webhook. */
  private async pickDue(tx: SqlExecutor, asks: readonly ClaimRequest[], now: number): Promise<Map<number, number[]>> {
    const due = sqlTimestamp(new Date(now));
    const selects = asks.map(
      ({ count }) =>
        `SELECT id, webhook_id AS webhookId, next_attempt_at AS dueAt FROM deliveries WHERE webhook_id = ? AND state = 'pending' AND next_attempt_at <= ?
          ORDER BY next_attempt_at LIMIT ${Math.floor(count)}${this.db.dialect.forUpdateSkipLocked}`,
    );
    const rows = await tx.select<{ id: number; webhookId: number; dueAt: unknown }>(
      this.db.dialect.unionAll(selects),
      asks.flatMap(({ webhookId }) => [webhookId, due]),
    );
    const picked = new Map<number, number[]>();
    for (const row of [...rows].sort((a, b) => time(a.dueAt)! - time(b.dueAt)!)) {
      const ids = picked.get(Number(row.webhookId)) ?? [];
      ids.push(Number(row.id));
      picked.set(Number(row.webhookId), ids);
    }
    return picked;
  }
}

function claimedOf(row: Record<string, unknown>): ClaimedDelivery {
  const eventType = String(row.eventType);
  return {
    id: Number(row.id),
    webhookId: Number(row.webhookId),
    leaseEndsAt: time(row.leaseEndsAt)!,
    attempts: Number(row.attempts),
    retryFrom: Number(row.retryFrom),
    organizationId: Number(row.organizationId),
    eventId: String(row.eventId),
    eventType,
    payload: sealedFromJson(row.payload),
    target: targetOfRow(row, eventType),
    health: healthOfRow(row),
  };
}
