import { Injectable } from '@nestjs/common';
import { Column, rowReader } from '../../database/row-reader';
import { placeholders, type SqlValue, varying } from '../../database/sql-executor';
import { sqlTimestamp } from '../../database/sql-dialect';
import type { Transaction } from '../../database/unit-of-work';
import { WebhookSql } from '../../webhooks/webhook-sql';
import type { DeliveryState } from '../delivery.model';
import { HealthSql } from '../webhook-health-sql';
import { DispatchDatabase } from './dispatch-database';

// The Database executor: every statement here is on the dispatcher's hot path or in another
// feature's transaction (docs/performance.md); statements over a list of ids are VaryingSql,
// sent as text, never prepared (docs/api.md 9).

/** A delivery's lane (deliveries.lane): a backlog of retries never keeps first attempts waiting (docs/api.md 10.10). */
export const LANE = { fresh: 0, retry: 1 } as const;

/**
 * The most attempt rows kept per delivery (docs/api.md 10.7): writing a newer one deletes the
 * oldest beyond it, so that no replay or recovery can grow one delivery's log without bound.
 */
export const ATTEMPTS_KEPT = 1000;

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

/**
 * docs/api.md 10.10: a disabled webhook keeps no pending delivery. Its deliveries that would be
 * pending (given back, retried) are failed instead, in the same statement, whichever instance
 * writes them: the one rule every transition below that could leave a delivery pending follows
 * (ingest's fan-out inserts a disabled webhook's deliveries failed by the same test).
 */
const DISABLED = (webhookColumn: string) => `${WebhookSql.disabledOf(webhookColumn)} > 0`;
const pendingUnlessDisabled = (state: DeliveryState, disabled: boolean): DeliveryState =>
  state === 'pending' && disabled ? 'failed' : state;

const readHeld = rowReader({
  id: Column.int,
  webhookId: Column.int,
  attempts: Column.int,
  disabled: Column.positive,
  unhealthy: Column.positive,
});

/**
 * Every change of a delivery's state (docs/api.md 10.5), each named once: no other statement of
 * the service changes `deliveries.state`, its claim or its due time (ingest inserts them; the
 * retention deletes them). A claimer's writes count only while its token is on the row: a
 * delivery whose lease ran out (its claimer died or hung) is due again and claimed anew, and the
 * late claimer's writes change nothing.
 *
 *   pending ──claim──▶ claimed ──record──▶ succeeded | failed | pending (a retry, due later)
 *      ▲                  │ release (pending, due now) · cancel (cancelled) · failUnattempted (failed)
 *      └──── requeue ◀── succeeded | failed (a replay, a recovery)
 *   pending ──cancelPendingOf──▶ cancelled (the webhook deleted)
 *   pending ──failPendingOf, failLeftPending──▶ failed (the webhook disabled)
 */
@Injectable()
export class DeliveryTransitions {
  constructor(private readonly db: DispatchDatabase) {}

  /** claim: the deliveries a claim took are this instance's (its token) until `leaseEndsAt`, in the claim's transaction. */
  async claim(tx: Transaction, ids: readonly number[], leaseEndsAt: number, token: string): Promise<void> {
    if (ids.length === 0) return;
    await tx.execute(varying(`UPDATE deliveries SET next_attempt_at = ?, claim_token = ? WHERE id IN (${placeholders(ids.length)})`), [
      sqlTimestamp(new Date(leaseEndsAt)),
      token,
      ...ids,
    ]);
  }

  /**
   * record: ends claims with their attempts' outcomes, in the caller's transaction (one for the
   * batch, with the endpoints' health). Each delivery still claimed with `token` gets its new state
   * (a retry of a webhook disabled meanwhile is failed: DISABLED's rule) and its attempt's row, and
   * loses its oldest attempts past ATTEMPTS_KEPT; the others (their lease ran out, or they were
   * cancelled or failed meanwhile) are left as they are. The ids recorded, the completions as
   * written, and the webhooks of theirs whose health is not healthy (read with the claims' locks).
   */
  async record(
    tx: Transaction,
    completions: readonly Completion[],
    token: string,
  ): Promise<{ recorded: Set<number>; written: Completion[]; unhealthy: Set<number> }> {
    const held = (
      await tx.select(
        varying(
          `SELECT d.id AS id, d.webhook_id AS webhookId, d.attempts AS attempts,
                  ${WebhookSql.disabledOf('d.webhook_id')} AS disabled,
                  ${HealthSql.unhealthyOf('d.webhook_id')} AS unhealthy
             FROM deliveries d WHERE d.claim_token = ? AND d.state = 'pending' AND d.id IN (${placeholders(completions.length)})${tx.dialect.forUpdate}`,
        ),
        [token, ...completions.map(({ id }) => id)],
      )
    ).map(readHeld);
    const disabled = new Set(held.filter((row) => row.disabled).map((row) => row.id));
    const recorded = new Set(held.map((row) => row.id));
    const written = completions
      .filter(({ id }) => recorded.has(id))
      .map((completion) => {
        const state = pendingUnlessDisabled(completion.record.state, disabled.has(completion.id));
        return state === completion.record.state
          ? completion
          : { ...completion, record: { ...completion.record, state, nextAttemptAt: null } };
      });
    if (written.length > 0) await this.writeAttempts(tx, written);
    // Rows beyond the last ATTEMPTS_KEPT exist only where the delivery had had as many attempts.
    for (const { id } of held.filter((row) => row.attempts + 1 > ATTEMPTS_KEPT)) await this.trimAttempts(tx, id);
    return { recorded, written, unhealthy: new Set(held.filter((row) => row.unhealthy).map((row) => row.webhookId)) };
  }

  /** release: claims given back unattempted (held back, no room, shutdown) are due at `now`, for any instance (DISABLED's rule). */
  async release(ids: readonly number[], token: string, now: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.execute(
      varying(
        `UPDATE deliveries SET state = CASE WHEN ${DISABLED('deliveries.webhook_id')} THEN 'failed' ELSE 'pending' END,
                next_attempt_at = CASE WHEN ${DISABLED('deliveries.webhook_id')} THEN NULL ELSE ? END, claim_token = NULL
          WHERE claim_token = ? AND state = 'pending' AND id IN (${placeholders(ids.length)})`,
      ),
      [sqlTimestamp(new Date(now)), token, ...ids],
    );
  }

  /** cancel: a claim ended without an attempt, its webhook gone (docs/api.md 10.2). */
  async cancel(id: number, token: string): Promise<void> {
    await this.db.execute(
      "UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL, claim_token = NULL WHERE id = ? AND claim_token = ?",
      [id, token],
    );
  }

  /** failUnattempted: a claim ended without an attempt, its webhook disabled; replayable once it is enabled (docs/api.md 10.10). */
  async failUnattempted(id: number, token: string): Promise<void> {
    await this.db.execute(
      "UPDATE deliveries SET state = 'failed', next_attempt_at = NULL, claim_token = NULL WHERE id = ? AND claim_token = ? AND state = 'pending'",
      [id, token],
    );
  }

  /** cancelPendingOf: a deleted webhook's deliveries that have not succeeded are cancelled, in the deleting transaction (docs/api.md 10.2). */
  async cancelPendingOf(tx: Transaction, webhookId: number): Promise<void> {
    await tx.execute(
      "UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL, claim_token = NULL WHERE webhook_id = ? AND state = 'pending'",
      [webhookId],
    );
  }

  /**
   * requeue: deliveries sent again, in the caller's transaction (a replay, a recovery's batch:
   * docs/api.md 10.7, 10.14): a succeeded or failed one is pending again, due `now`, and a
   * pending one that no instance holds is brought forward; either way the retry schedule starts
   * again after the attempts already made. A cancelled one, or one in flight, is left as it is.
   * `lane`: a replay someone waits for goes with the first attempts, a recovery's batch with the
   * backlog (docs/api.md 10.10). How many were made pending.
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
   * failPendingOf: a disabled webhook's pending deliveries are failed without a further attempt
   * (the attempt log keeps what was tried), in the disabling transaction (docs/api.md 10.10). Those
   * an instance holds under a live lease are its to end: an attempt in flight is recorded as any
   * other (and then failed, by DISABLED's rule), one not yet started is failed when it would start.
   */
  async failPendingOf(tx: Transaction, webhookId: number, now: Date): Promise<void> {
    await tx.execute(
      `UPDATE deliveries SET state = 'failed', next_attempt_at = NULL, claim_token = NULL
        WHERE webhook_id = ? AND state = 'pending' AND (claim_token IS NULL OR next_attempt_at <= ?)`,
      [webhookId, sqlTimestamp(now)],
    );
  }

  /**
   * failLeftPending: the pending deliveries of these webhooks that no live claim holds (their
   * claimer died under a live lease at the disabling) are failed as failPendingOf fails them, if
   * the webhook is still disabled (the scan found it so).
   */
  async failLeftPending(webhookIds: readonly number[], now: number): Promise<void> {
    if (webhookIds.length === 0) return;
    await this.db.execute(
      varying(
        `UPDATE deliveries SET state = 'failed', next_attempt_at = NULL, claim_token = NULL
          WHERE webhook_id IN (${placeholders(webhookIds.length)}) AND state = 'pending' AND (claim_token IS NULL OR next_attempt_at <= ?)
            AND ${DISABLED('deliveries.webhook_id')}`,
      ),
      [...webhookIds, sqlTimestamp(new Date(now))],
    );
  }

  /** One attempt's record per delivery: its new state, and its row in delivery_attempts (VaryingSql: a CASE per delivery). */
  private async writeAttempts(tx: Transaction, written: readonly Completion[]): Promise<void> {
    const cases = written.map(() => 'WHEN ? THEN ?').join(' ');
    const column = (value: (record: AttemptRecord) => SqlValue) => written.flatMap(({ id, record }) => [id, value(record)]);
    await tx.execute(
      varying(
        `UPDATE deliveries SET state = CASE id ${cases} END, attempts = attempts + 1, next_attempt_at = CASE id ${cases} END, claim_token = NULL,
                lane = ${LANE.retry}, last_attempt_at = CASE id ${cases} END, last_duration_ms = CASE id ${cases} END,
                last_status = CASE id ${cases} END, last_error = CASE id ${cases} END
          WHERE id IN (${placeholders(written.length)})`,
      ),
      [
        ...column((r) => r.state),
        ...column((r) => r.nextAttemptAt && sqlTimestamp(r.nextAttemptAt)),
        ...column((r) => sqlTimestamp(r.at)),
        ...column((r) => r.durationMs),
        ...column((r) => r.status),
        ...column((r) => r.error),
        ...written.map(({ id }) => id),
      ],
    );
    await tx.execute(
      varying(
        `INSERT INTO delivery_attempts (delivery_id, at, duration_ms, status, error) VALUES ${written.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
      ),
      written.flatMap(({ id, record }) => [id, sqlTimestamp(record.at), record.durationMs, record.status, record.error]),
    );
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
}
