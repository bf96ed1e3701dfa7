import { Injectable } from '@nestjs/common';
import type { AuditChange } from '../../audit/audit.model';
import { AuditRepository } from '../../audit/audit.repository';
import { Database } from '../../database/database';
import { isForeignKeyViolation, isUniqueViolation } from '../../database/database-errors';
import { placeholders, type SqlExecutor, varying } from '../../database/sql-executor';
import { dateOf, sqlTimestamp } from '../../database/sql-dialect';
import { WebhookSql } from '../../webhooks/webhook-sql';
import { DeliveryQueue } from '../dispatch/delivery-queue';
import type { RecoveryWindow } from './recovery-window';

// The Database executor: a recovery is counted, recorded and given its first batch in one short
// transaction, then worked a batch at a time, each batch one short transaction reading one range
// of ix_deliveries_webhook_state_created (docs/api.md 10.14).

/** Deliveries made pending again per transaction: each batch is short, however large the recovery. */
const RECOVERY_BATCH = 500;

/** A recovery about to be recorded. */
export interface NewRecovery {
  readonly webhookId: number;
  readonly idempotencyKey: string | undefined;
  readonly requestHash: string;
  readonly window: RecoveryWindow;
  readonly requestedAt: Date;
}

/** A recovery found under an idempotency key. */
export interface KeyedRecovery {
  readonly id: number;
  readonly requestHash: string;
  readonly deliveries: number;
  readonly requestedAt: Date;
}

/** Where a recovery has got to: the creation time (ms) and id of the last delivery it made pending. */
export type RecoveryPosition = readonly [createdAtMs: number, id: number];

/** A recovery as its batches work it. */
export interface ClaimedRecovery {
  readonly id: number;
  readonly webhookId: number;
  readonly window: RecoveryWindow;
  readonly requestedAt: Date;
  readonly after: RecoveryPosition | undefined;
}

/** What one batch did: how many deliveries it made pending, and whether the recovery goes on (and from where). */
export type BatchOutcome =
  | { readonly state: 'more'; readonly recovered: number; readonly after: RecoveryPosition }
  | { readonly state: 'done'; readonly recovered: number };

const FAILED_IN_WINDOW = "webhook_id = ? AND state = 'failed' AND created_at >= ? AND created_at < ?";
const INDEX = 'ix_deliveries_webhook_state_created';

@Injectable()
export class RecoveriesRepository {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditRepository,
    private readonly queue: DeliveryQueue,
  ) {}

  /**
   * Counts the webhook's failed deliveries in the window (one range of the index, however many)
   * and records the recovery with that count, its first batch, its audit entry and what
   * `alsoRecord` writes, in one transaction: the count is the answer's, and a recovery of up to
   * RECOVERY_BATCH deliveries is done when it is answered. 'duplicate' when its idempotency key
   * is taken (a race: the other request recorded first); 'gone' when the webhook was deleted
   * meanwhile (its foreign key says so).
   */
  start(
    recovery: NewRecovery,
    change: AuditChange,
    alsoRecord?: (tx: SqlExecutor, at: Date) => Promise<void>,
  ): Promise<({ deliveries: number } & BatchOutcome) | 'duplicate' | 'gone'> {
    const { webhookId, idempotencyKey, requestHash, window, requestedAt } = recovery;
    return this.db
      .transaction(
        async (tx) => {
          const [row] = await tx.select<{ failed: unknown }>(
            `SELECT COUNT(*) AS failed FROM deliveries${this.db.dialect.indexedBy(INDEX)} WHERE ${FAILED_IN_WINDOW}`,
            [webhookId, sqlTimestamp(window.since), sqlTimestamp(window.until)],
          );
          const deliveries = Number(row.failed);
          const id = await tx.insert(
            `INSERT INTO delivery_recoveries (webhook_id, idempotency_key, request_hash, since, until, requested_at, deliveries)
             VALUES (?, ?, ?, ?, ?, ?, ?)`,
            [
              webhookId,
              idempotencyKey ?? null,
              requestHash,
              sqlTimestamp(window.since),
              sqlTimestamp(window.until),
              sqlTimestamp(requestedAt),
              deliveries,
            ],
          );
          const first = await this.batch(tx, { id, webhookId, window, requestedAt, after: undefined }, requestedAt, null);
          await this.audit.record(tx, change, requestedAt);
          await alsoRecord?.(tx, requestedAt);
          return { deliveries, ...first };
        },
        { readCommitted: true },
      )
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) return 'duplicate' as const;
        if (isForeignKeyViolation(error)) return 'gone' as const;
        throw error;
      });
  }

  async findByIdempotencyKey(webhookId: number, key: string): Promise<KeyedRecovery | undefined> {
    const [row] = await this.db.select<{ id: number; requestHash: string; deliveries: number; requestedAt: Date | string }>(
      `SELECT id, request_hash AS requestHash, deliveries, requested_at AS requestedAt
         FROM delivery_recoveries WHERE webhook_id = ? AND idempotency_key = ?`,
      [webhookId, key],
    );
    return (
      row && { id: Number(row.id), requestHash: row.requestHash, deliveries: Number(row.deliveries), requestedAt: dateOf(row.requestedAt) }
    );
  }

  /** Frees an expired idempotency key (older than its window) for a new recovery. */
  async forgetIdempotencyKey(id: number): Promise<void> {
    await this.db.execute('UPDATE delivery_recoveries SET idempotency_key = NULL WHERE id = ?', [id]);
  }

  /**
   * Claims the oldest recovery that is not done and that no live claim of another instance holds
   * (this instance's own, left by a batch that failed, it takes again at once), until
   * `leaseUntil`: undefined when there is none, or when another instance claimed it first.
   */
  async claimNext(token: string, now: Date, leaseUntil: Date): Promise<ClaimedRecovery | undefined> {
    const open = 'done_at IS NULL AND (claimed_until IS NULL OR claimed_until < ? OR claim_token = ?)';
    const [next] = await this.db.select<{ id: number }>(`SELECT id FROM delivery_recoveries WHERE ${open} ORDER BY id LIMIT 1`, [
      sqlTimestamp(now),
      token,
    ]);
    if (next === undefined) return undefined;
    const claimed = await this.db.execute(`UPDATE delivery_recoveries SET claim_token = ?, claimed_until = ? WHERE id = ? AND ${open}`, [
      token,
      sqlTimestamp(leaseUntil),
      next.id,
      sqlTimestamp(now),
      token,
    ]);
    if (claimed !== 1) return undefined;
    const [row] = await this.db.select<Record<string, unknown>>(
      `SELECT id, webhook_id AS webhookId, since, until, requested_at AS requestedAt, after_created_at AS afterCreatedAt, after_id AS afterId
         FROM delivery_recoveries WHERE id = ?`,
      [next.id],
    );
    const time = (value: unknown) => dateOf(value as Date | string);
    return {
      id: Number(row.id),
      webhookId: Number(row.webhookId),
      window: { since: time(row.since), until: time(row.until) },
      requestedAt: time(row.requestedAt),
      after: row.afterId === null ? undefined : [time(row.afterCreatedAt).getTime(), Number(row.afterId)],
    };
  }

  /**
   * The next batch of a recovery this instance claimed, in one short transaction (the claim's
   * lease moves on with it); 'lost' when the claim is no longer this one's.
   */
  recoverBatch(recovery: ClaimedRecovery, token: string, now: Date, leaseUntil: Date): Promise<BatchOutcome | { readonly state: 'lost' }> {
    return this.db.transaction(
      async (tx) => {
        const [mine] = await tx.select(
          `SELECT id FROM delivery_recoveries WHERE id = ? AND claim_token = ? AND done_at IS NULL${this.db.dialect.forUpdate}`,
          [recovery.id, token],
        );
        if (mine === undefined) return { state: 'lost' as const };
        return this.batch(tx, recovery, now, leaseUntil);
      },
      { readCommitted: true },
    );
  }

  /**
   * One batch, in the caller's transaction: up to RECOVERY_BATCH of the webhook's deliveries in
   * the window, after the position reached, that were failed when the recovery was asked for
   * (not those that failed since, whose last attempt is newer), are sent again through the one
   * statement that requeues a delivery; the position (and a claim's lease) moves on with them.
   * Done when fewer remain, or when the webhook is disabled (nothing is sent to it; a recovery
   * after enabling it sends the rest). The webhook is read with a shared lock, as the fan-out
   * does: a disabling is wholly before or after the batch, so no delivery is left pending on a
   * disabled webhook. Run under READ COMMITTED (MySQL): the range's locking read takes no gap
   * locks that would hold back the fan-out's inserts.
   */
  private async batch(tx: SqlExecutor, recovery: ClaimedRecovery, now: Date, leaseUntil: Date | null): Promise<BatchOutcome> {
    const { dialect } = this.db;
    const { after } = recovery;
    const [enabled] = await tx.select(
      `SELECT ${WebhookSql.id} AS id FROM ${WebhookSql.withSource} WHERE ${WebhookSql.id} = ? AND ${WebhookSql.enabled}${dialect.forShare}`,
      [recovery.webhookId],
    );
    const position = after && sqlTimestamp(new Date(after[0]));
    const rows =
      enabled === undefined
        ? []
        : await tx.select<{ id: number; createdAt: Date | string }>(
            `SELECT id, created_at AS createdAt FROM deliveries${dialect.indexedBy(INDEX)}
              WHERE ${FAILED_IN_WINDOW}${after ? ' AND created_at >= ? AND (created_at > ? OR id > ?)' : ''}
                AND (last_attempt_at IS NULL OR last_attempt_at <= ?)
              ORDER BY created_at, id LIMIT ?${dialect.forUpdate}`,
            [
              recovery.webhookId,
              sqlTimestamp(recovery.window.since),
              sqlTimestamp(recovery.window.until),
              ...(after ? [position!, position!, after[1]] : []),
              sqlTimestamp(recovery.requestedAt),
              RECOVERY_BATCH,
            ],
          );
    const recovered = await this.queue.requeue(
      tx,
      rows.map((row) => Number(row.id)),
      now,
      'retry',
    );
    const last = rows[rows.length - 1];
    const reached: RecoveryPosition | undefined = last === undefined ? after : [dateOf(last.createdAt).getTime(), Number(last.id)];
    const done = rows.length < RECOVERY_BATCH;
    await tx.execute('UPDATE delivery_recoveries SET after_created_at = ?, after_id = ?, claimed_until = ?, done_at = ? WHERE id = ?', [
      reached ? sqlTimestamp(new Date(reached[0])) : null,
      reached?.[1] ?? null,
      leaseUntil && sqlTimestamp(leaseUntil),
      done ? sqlTimestamp(now) : null,
      recovery.id,
    ]);
    return done ? { state: 'done', recovered } : { state: 'more', recovered, after: reached! };
  }

  /** Gives a claim back (shutdown): another instance goes on from where this one stopped. */
  async release(id: number, token: string): Promise<void> {
    await this.db.execute('UPDATE delivery_recoveries SET claim_token = NULL, claimed_until = NULL WHERE id = ? AND claim_token = ?', [
      id,
      token,
    ]);
  }

  /** Retention: deletes up to `batch` recoveries done before `before`; how many went. */
  async pruneBatch(before: Date, batch: number): Promise<number> {
    const rows = await this.db.select<{ id: number }>('SELECT id FROM delivery_recoveries WHERE done_at < ? ORDER BY done_at LIMIT ?', [
      sqlTimestamp(before),
      batch,
    ]);
    if (rows.length === 0) return 0;
    return this.db.execute(
      varying(`DELETE FROM delivery_recoveries WHERE id IN (${placeholders(rows.length)})`),
      rows.map((row) => row.id),
    );
  }
}
