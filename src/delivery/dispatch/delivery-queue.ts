import { Injectable } from '@nestjs/common';
import type { SealedSecret } from '../../crypto/secret-box';
import { Column, rowReader } from '../../database/row-reader';
import { placeholders, type SqlValue, varying } from '../../database/sql-executor';
import { sqlTimestamp } from '../../database/sql-dialect';
import type { Transaction } from '../../database/unit-of-work';
import { targetOfRow, WebhookSql, WebhookTarget } from '../../webhooks/webhook-sql';
import type { DeliveryState } from '../delivery.model';
import { sealedFromJson } from '../events/sealed-json';
import { HealthSql } from '../webhook-health-sql';
import { DispatchDatabase } from './dispatch-database';
import { EndpointHealthRepository } from './endpoint-health.repository';
import { nextFreeSlot, rateSlots, RateSlots, slotGraceMs } from './rate-slots';
import { type ClaimAsk, type DueWebhook, RATE_HORIZON_MS, type Work } from './scheduling/dispatch-scheduler';

// The Database executor: the claim needs FOR UPDATE SKIP LOCKED, which TypeORM's API does not give,
// and every statement here is on the dispatcher's hot path (docs/performance.md). Statements
// over a list of ids are VaryingSql: sent as text, never prepared (docs/api.md 9).

/** The claim's transaction: its locking reads take no gap locks, which would hold off every insert of a new due delivery. */
export const CLAIM_TRANSACTION = { readCommitted: true } as const;

/** A delivery's lane (deliveries.lane): a backlog of retries never keeps first attempts waiting (docs/api.md 10.10). */
export const LANE = { fresh: 0, retry: 1 } as const;

/** A delivery this instance holds the claim of: what the scheduler needs, and what its attempt needs besides. */
export interface ClaimedDelivery extends Work {
  /** Attempts made before this one. */
  readonly attempts: number;
  /** Attempts made before the last replay (the schedule starts again after them). */
  readonly retryFrom: number;
  readonly eventId: string;
  readonly eventType: string;
  /** The event body's size: what holding it costs (DELIVERY_BUFFER_MB). */
  readonly bodyBytes: number;
  /** The rate limiter's slot: not sent before then. */
  readonly notBefore?: number;
  /** The end of the slot's grace (slotGraceMs): not sent after then, but given back for a later slot. */
  readonly notAfter?: number;
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

/** An attempt's outcome to write: its delivery, and the record. */
export interface Completion {
  readonly id: number;
  readonly webhookId: number;
  readonly record: AttemptRecord;
}

/** An event body as stored: sealed, bound to its event (docs/api.md 10.8). */
export interface StoredBody {
  readonly eventId: string;
  readonly organizationId: number;
  readonly payload: SealedSecret;
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
 * (its lease ran out since), to be failed (DeliveryQueue.failPendingOfDisabled). It reads the
 * rows of `webhooks` it read already, and its seeks find nothing otherwise: the scan costs what
 * it did per enabled webhook.
 */
export const SCAN = `SELECT * FROM (
  SELECT ${WebhookSql.id} AS webhookId, ${WebhookSql.organization} AS organizationId, ${WebhookSql.rateLimit} AS rateLimit,
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
const readBody = rowReader({ id: Column.text, organizationId: Column.int, payload: (value) => sealedFromJson(value) });
const readHeld = rowReader({
  id: Column.int,
  webhookId: Column.int,
  attempts: Column.int,
  disabled: Column.positive,
  unhealthy: Column.positive,
});

/**
 * The most attempt rows kept per delivery (docs/api.md 10.7): writing a newer one deletes the
 * oldest beyond it, so that no replay or recovery can grow one delivery's log without bound.
 */
export const ATTEMPTS_KEPT = 1000;

/**
 * One lane of one webhook: its due deliveries, oldest first, skipping those other claims hold,
 * with what an attempt needs of the delivery and its event (read by scalar subqueries, so that
 * the locking read locks the deliveries only: two instances claim deliveries of one event for
 * different webhooks at once). Parameters: webhook, lane, now, limit.
 */
const dueOfLane = (skipLocked: string) =>
  `SELECT d.id AS id, d.webhook_id AS webhookId, d.lane AS lane, d.next_attempt_at AS dueAt, d.attempts AS attempts,
          d.retry_from AS retryFrom, d.organization_id AS organizationId, d.event_id AS eventId,
          (SELECT e.type FROM events e WHERE e.id = d.event_id) AS eventType,
          (SELECT e.body_bytes FROM events e WHERE e.id = d.event_id) AS bodyBytes
     FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.lane = ? AND d.next_attempt_at <= ?
    ORDER BY d.next_attempt_at LIMIT ?${skipLocked}`;

/**
 * The database as the queue (docs/api.md 10.5, 10.6, 10.10). A claim moves a due delivery's
 * `next_attempt_at` to the end of a lease and stamps it with the claiming instance's token,
 * in a transaction whose SELECTs skip rows other instances are claiming (FOR UPDATE SKIP
 * LOCKED; SQLite has one writer). The claimer's outcome counts only while its token is still
 * there: a delivery whose lease ran out (its claimer died or hung) is due again and claimed
 * anew, and the late claimer's result is dropped. At least once, never twice at the same time.
 *
 * Claims are made per webhook and lane, for what the scheduler has room for; ingest hands the
 * deliveries of new events over already claimed (DispatchSignal). What an attempt needs of its
 * webhook (target, secrets, `disabled`) is read when it starts (`targets`), its event body once
 * per event (`bodies`).
 */
@Injectable()
export class DeliveryQueue {
  constructor(
    private readonly db: DispatchDatabase,
    private readonly health: EndpointHealthRepository,
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
   * Claims what each ask wants of a webhook's due deliveries (first attempts, then retries,
   * oldest first) and that `choose` keeps (the memory budget for their bodies), in the caller's
   * transaction (one for the claim, at READ COMMITTED: CLAIM_TRANSACTION), so that a database gone
   * before the commit leaves nothing claimed. A rate-limited webhook gets no more than the
   * limiter's slots within RATE_HORIZON_MS, each delivery with its send time; a probe is made only
   * by the claim that takes it.
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
    const slots = new Map<number, RateSlots>();
    for (const { webhookId, rateLimit, fresh, retries } of asks) {
      if (rateLimit === undefined) continue;
      slots.set(webhookId, rateSlots(await this.health.lockRateSlot(tx, webhookId), now, rateLimit, fresh + retries, RATE_HORIZON_MS));
    }
    const candidates = await this.pickDue(tx, asks, slots, now, leaseEndsAt);
    const probes = new Map<number, boolean>();
    for (const { webhookId, probe } of asks) {
      if (probe === true && candidates.some((c) => c.webhookId === webhookId)) {
        probes.set(webhookId, await this.health.takeProbe(tx, webhookId, now, leaseEndsAt));
      }
    }
    const taken = choose(
      candidates
        .filter((candidate) => probes.get(candidate.webhookId) !== false)
        .map((candidate) => (probes.get(candidate.webhookId) === true ? { ...candidate, probe: true } : candidate)),
    );
    if (taken.length === 0) return [];
    const ids = taken.map(({ id }) => id);
    await tx.execute(varying(`UPDATE deliveries SET next_attempt_at = ?, claim_token = ? WHERE id IN (${placeholders(ids.length)})`), [
      sqlTimestamp(new Date(leaseEndsAt)),
      token,
      ...ids,
    ]);
    const claimed: ClaimedDelivery[] = [];
    for (const [webhookId, limiter] of slots) {
      const mine = taken.filter((delivery) => delivery.webhookId === webhookId);
      mine.forEach((delivery, i) => {
        const slot = limiter.start + i * limiter.intervalMs;
        claimed.push({ ...delivery, notBefore: slot, notAfter: slot + slotGraceMs(limiter.intervalMs) });
      });
      if (mine.length > 0) await this.health.setRateSlot(tx, webhookId, nextFreeSlot(limiter, mine.length));
    }
    return [...claimed, ...taken.filter((delivery) => !slots.has(delivery.webhookId))];
  }

  /** The sealed bodies of these events (docs/api.md 10.8), each read once for all its deliveries. */
  async bodies(eventIds: readonly string[]): Promise<StoredBody[]> {
    if (eventIds.length === 0) return [];
    const rows = await this.db.select(
      varying(`SELECT id, organization_id AS organizationId, payload FROM events WHERE id IN (${placeholders(eventIds.length)})`),
      eventIds,
    );
    return rows.flatMap((row) => {
      try {
        const { id, organizationId, payload } = readBody(row);
        return [{ eventId: id, organizationId, payload }];
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
   * Ends claims with their attempts' outcomes, in the caller's transaction (one for the batch,
   * with the endpoints' health): each delivery still claimed with `token` gets its new state and
   * its attempt's record (a delivery whose webhook was disabled meanwhile is failed, not pending:
   * docs/api.md 10.10); the others (their lease ran out, or they were cancelled or failed
   * meanwhile) are left as they are. The ids recorded, the completions written (as written), and
   * the webhooks of theirs whose health is not healthy (read with the claims' locks).
   */
  async complete(
    tx: Transaction,
    completions: readonly Completion[],
    token: string,
  ): Promise<{ recorded: Set<number>; mine: Completion[]; unhealthy: Set<number> }> {
    const ids = completions.map(({ id }) => id);
    const held = (
      await tx.select(
        varying(
          `SELECT d.id AS id, d.webhook_id AS webhookId, d.attempts AS attempts,
                  ${WebhookSql.disabledOf('d.webhook_id')} AS disabled,
                  ${HealthSql.unhealthyOf('d.webhook_id')} AS unhealthy
             FROM deliveries d WHERE d.claim_token = ? AND d.state = 'pending' AND d.id IN (${placeholders(ids.length)})${tx.dialect.forUpdate}`,
        ),
        [token, ...ids],
      )
    ).map(readHeld);
    const disabled = new Set(held.filter((row) => row.disabled).map((row) => row.id));
    const unhealthy = new Set(held.filter((row) => row.unhealthy).map((row) => row.webhookId));
    const recorded = new Set(held.map((row) => row.id));
    const mine = completions
      .filter(({ id }) => recorded.has(id))
      .map((c) =>
        disabled.has(c.id) && c.record.state === 'pending'
          ? { ...c, record: { ...c.record, state: 'failed' as const, nextAttemptAt: null } }
          : c,
      );
    if (mine.length > 0) await this.write(tx, mine);
    // Rows beyond the last ATTEMPTS_KEPT exist only where the delivery had had as many attempts.
    for (const { id } of held.filter((row) => row.attempts + 1 > ATTEMPTS_KEPT)) await this.trimAttempts(tx, id);
    return { recorded, mine, unhealthy };
  }

  /** Deletes the delivery's attempt rows older than its newest ATTEMPTS_KEPT (a range of ix_delivery_attempts_delivery). */
  private async trimAttempts(tx: Transaction, deliveryId: number): Promise<void> {
    const [oldestKept] = await tx.select('SELECT id FROM delivery_attempts WHERE delivery_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?', [
      deliveryId,
      ATTEMPTS_KEPT - 1,
    ]);
    if (oldestKept !== undefined) {
      await tx.execute('DELETE FROM delivery_attempts WHERE delivery_id = ? AND id < ?', [deliveryId, Column.int(oldestKept.id)]);
    }
  }

  /**
   * Gives claims back unattempted (held back, no room, shutdown): due at `now` for any instance.
   * Those of a webhook disabled meanwhile are failed instead, as the disabling fails the pending
   * deliveries no instance holds (failPendingOf, docs/api.md 10.10): none is left pending on it.
   */
  async release(ids: readonly number[], token: string, now: number): Promise<void> {
    if (ids.length === 0) return;
    const disabled = `${WebhookSql.disabledOf('deliveries.webhook_id')} > 0`;
    await this.db.execute(
      varying(
        `UPDATE deliveries SET state = CASE WHEN ${disabled} THEN 'failed' ELSE 'pending' END,
                next_attempt_at = CASE WHEN ${disabled} THEN NULL ELSE ? END, claim_token = NULL
          WHERE claim_token = ? AND state = 'pending' AND id IN (${placeholders(ids.length)})`,
      ),
      [sqlTimestamp(new Date(now)), token, ...ids],
    );
  }

  /** Ends a claim without an attempt, its webhook gone: the delivery is cancelled. */
  async cancel(id: number, token: string): Promise<void> {
    await this.db.execute(
      "UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL, claim_token = NULL WHERE id = ? AND claim_token = ?",
      [id, token],
    );
  }

  /** Ends a claim without an attempt, its webhook disabled: the delivery is failed (docs/api.md 10.10), replayable once it is enabled. */
  async failUnattempted(id: number, token: string): Promise<void> {
    await this.db.execute(
      "UPDATE deliveries SET state = 'failed', next_attempt_at = NULL, claim_token = NULL WHERE id = ? AND claim_token = ? AND state = 'pending'",
      [id, token],
    );
  }

  /** docs/api.md 10.2: a deleted webhook's deliveries that have not succeeded are cancelled, in the deleting transaction. */
  async cancelPendingOf(tx: Transaction, webhookId: number): Promise<void> {
    await tx.execute(
      "UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL, claim_token = NULL WHERE webhook_id = ? AND state = 'pending'",
      [webhookId],
    );
  }

  /**
   * docs/api.md 10.7, 10.14: deliveries sent again, in the caller's transaction (a replay, a
   * recovery's batch): a succeeded or failed one is pending again, due `now`, and a pending one
   * that no instance holds is brought forward; either way the retry schedule starts again after
   * the attempts already made. A cancelled one, or one in flight, is left as it is. `lane`: a
   * replay someone waits for goes with the first attempts, a recovery's batch with the backlog
   * (docs/api.md 10.10). The one statement that brings a delivery back to the queue.
   */
  async requeue(tx: Transaction, ids: readonly number[], now: Date, lane: keyof typeof LANE): Promise<number> {
    if (ids.length === 0) return 0;
    return tx.execute(
      varying(
        `UPDATE deliveries SET state = 'pending', next_attempt_at = ?, retry_from = attempts, lane = ?
          WHERE id IN (${placeholders(ids.length)}) AND (state IN ('succeeded', 'failed') OR (state = 'pending' AND claim_token IS NULL))`,
      ),
      [sqlTimestamp(now), LANE[lane], ...ids],
    );
  }

  /**
   * docs/api.md 10.10: a disabled webhook's pending deliveries are failed, without a further
   * attempt (the attempt log keeps what was tried), in the disabling transaction; a replay after
   * it is enabled sends them again. Those an instance holds under a live lease are its to end:
   * an attempt in flight is recorded as any other (and then failed, its webhook disabled), one
   * not yet started is failed when it would start.
   */
  async failPendingOf(tx: Transaction, webhookId: number, now: Date): Promise<void> {
    await tx.execute(
      `UPDATE deliveries SET state = 'failed', next_attempt_at = NULL, claim_token = NULL
        WHERE webhook_id = ? AND state = 'pending' AND (claim_token IS NULL OR next_attempt_at <= ?)`,
      [webhookId, sqlTimestamp(now)],
    );
  }

  /**
   * docs/api.md 10.10: the pending deliveries of these webhooks that no live claim holds (their
   * claimer died under a live lease at the disabling) are failed as failPendingOf fails them, if
   * the webhook is still disabled (the scan found it so: `disabled`).
   */
  async failPendingOfDisabled(webhookIds: readonly number[], now: number): Promise<void> {
    if (webhookIds.length === 0) return;
    await this.db.execute(
      varying(
        `UPDATE deliveries SET state = 'failed', next_attempt_at = NULL, claim_token = NULL
          WHERE webhook_id IN (${placeholders(webhookIds.length)}) AND state = 'pending' AND (claim_token IS NULL OR next_attempt_at <= ?)
            AND ${WebhookSql.disabledOf('deliveries.webhook_id')} > 0`,
      ),
      [...webhookIds, sqlTimestamp(new Date(now))],
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
    const [row] = await this.db.select(STATS, [at, at, at, at]);
    return readStats(row);
  }

  /** The due deliveries each ask wants, lane by lane (within a webhook's rate slots, first attempts first), oldest first. */
  private async pickDue(
    tx: Transaction,
    asks: readonly ClaimAsk[],
    slots: ReadonlyMap<number, RateSlots>,
    now: number,
    leaseEndsAt: number,
  ): Promise<ClaimedDelivery[]> {
    const lanes: { webhookId: number; lane: number; count: number }[] = [];
    for (const { webhookId, fresh, retries } of asks) {
      const allowed = slots.get(webhookId)?.count ?? fresh + retries;
      if (fresh > 0) lanes.push({ webhookId, lane: LANE.fresh, count: Math.min(fresh, allowed) });
      if (retries > 0) lanes.push({ webhookId, lane: LANE.retry, count: Math.min(retries, allowed) });
    }
    const wanted = lanes.filter(({ count }) => count > 0);
    if (wanted.length === 0) return [];
    const due = sqlTimestamp(new Date(now));
    const select = dueOfLane(tx.dialect.forUpdateSkipLocked);
    const rows = await tx.select(
      varying(tx.dialect.unionAll(wanted.map(() => select))),
      wanted.flatMap(({ webhookId, lane, count }): SqlValue[] => [webhookId, lane, due, count]),
    );
    const picked = rows
      .map(readDueDelivery)
      .sort((a, b) => a.lane - b.lane || a.dueAt - b.dueAt)
      .map((row) => claimedOf(row, leaseEndsAt));
    // A rate-limited webhook's slots go to its first attempts first.
    const left = new Map([...slots].map(([webhookId, limiter]) => [webhookId, limiter.count]));
    return picked.filter((delivery) => {
      const slotsLeft = left.get(delivery.webhookId);
      if (slotsLeft === undefined) return true;
      left.set(delivery.webhookId, slotsLeft - 1);
      return slotsLeft > 0;
    });
  }

  /** One attempt's record per delivery: its new state, and its row in delivery_attempts (VaryingSql: a CASE per delivery). */
  private async write(tx: Transaction, mine: readonly Completion[]): Promise<void> {
    const cases = mine.map(() => 'WHEN ? THEN ?').join(' ');
    const column = (value: (record: AttemptRecord) => SqlValue) => mine.flatMap(({ id, record }) => [id, value(record)]);
    await tx.execute(
      varying(
        `UPDATE deliveries SET state = CASE id ${cases} END, attempts = attempts + 1, next_attempt_at = CASE id ${cases} END, claim_token = NULL,
                lane = ${LANE.retry}, last_attempt_at = CASE id ${cases} END, last_duration_ms = CASE id ${cases} END,
                last_status = CASE id ${cases} END, last_error = CASE id ${cases} END
          WHERE id IN (${placeholders(mine.length)})`,
      ),
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
      varying(
        `INSERT INTO delivery_attempts (delivery_id, at, duration_ms, status, error) VALUES ${mine.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      ),
      mine.flatMap(({ id, record }) => [id, sqlTimestamp(record.at), record.durationMs, record.status, record.error]),
    );
  }
}

function claimedOf(row: ReturnType<typeof readDueDelivery>, leaseEndsAt: number): ClaimedDelivery {
  return {
    id: row.id,
    webhookId: row.webhookId,
    organizationId: row.organizationId,
    retry: row.lane === LANE.retry,
    leaseEndsAt,
    attempts: row.attempts,
    retryFrom: row.retryFrom,
    eventId: row.eventId,
    eventType: row.eventType,
    bodyBytes: row.bodyBytes ?? UNKNOWN_BODY_BYTES,
  };
}
