import { Injectable } from '@nestjs/common';
import { Database } from '../../database/database';
import { Column, rowReader } from '../../database/row-reader';
import { placeholders, varying } from '../../database/sql-executor';
import { sqlTimestamp } from '../../database/sql-dialect';
import type { Transaction } from '../../database/unit-of-work';
import { WebhookSql } from '../../webhooks/webhook-sql';
import { DeliveryTransitions } from '../dispatch/delivery-transitions';
import type { RecoveryWindow } from './recovery-window';

// The Database executor: a recovery is counted, recorded and given its first batch in one short
// transaction (DeliveryRecoveryService's), then worked a batch at a time, each batch one short
// transaction (RecoveryWorker's) reading one range of ix_deliveries_webhook_state_created
// (docs/api.md 10.14).

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
  readonly after: RecoveryPosition | undefined;
}

/** What one batch did: how many deliveries it made pending, and whether the recovery goes on (and from where). */
export type BatchOutcome =
  | { readonly state: 'more'; readonly recovered: number; readonly after: RecoveryPosition }
  | { readonly state: 'done'; readonly recovered: number };

/**
 * A recovery's transactions (the request's, each batch's): at READ COMMITTED (MySQL), so that
 * the range's locking read takes no gap locks that would hold back the fan-out's inserts.
 */
export const RECOVERY_TRANSACTION = { readCommitted: true } as const;

const readKeyed = rowReader({ id: Column.int, requestHash: Column.text, deliveries: Column.int, requestedAt: Column.moment });
const readClaimed = rowReader({
  id: Column.int,
  webhookId: Column.int,
  since: Column.moment,
  until: Column.moment,
  afterCreatedAt: Column.nullable(Column.millis),
  afterId: Column.nullable(Column.int),
});
const readBatchRow = rowReader({ id: Column.int, createdAt: Column.millis });

const FAILED_IN_WINDOW = "webhook_id = ? AND state = 'failed' AND created_at >= ? AND created_at < ?";
const INDEX = 'ix_deliveries_webhook_state_created';

@Injectable()
export class RecoveriesRepository {
  constructor(
    private readonly db: Database,
    private readonly transitions: DeliveryTransitions,
  ) {}

  /**
   * Counts the webhook's failed deliveries in the window (one range of the index, however many)
   * and records the recovery with that count, in the caller's transaction (RECOVERY_TRANSACTION,
   * which goes on with its first batch): its id and the count. Its idempotency key's unique
   * index refuses it when a race on the key was lost (the caller holds the webhook's row under a
   * share lock, so it cannot be deleted meanwhile).
   */
  async insert(tx: Transaction, recovery: NewRecovery): Promise<{ id: number; deliveries: number }> {
    const { webhookId, idempotencyKey, requestHash, window, requestedAt } = recovery;
    const [row] = await tx.select(`SELECT COUNT(*) AS failed FROM deliveries${tx.dialect.indexedBy(INDEX)} WHERE ${FAILED_IN_WINDOW}`, [
      webhookId,
      sqlTimestamp(window.since),
      sqlTimestamp(window.until),
    ]);
    const deliveries = Column.int(row.failed);
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
    return { id, deliveries };
  }

  async findByIdempotencyKey(webhookId: number, key: string): Promise<KeyedRecovery | undefined> {
    const [row] = await this.db.select(
      `SELECT id, request_hash AS requestHash, deliveries, requested_at AS requestedAt
         FROM delivery_recoveries WHERE webhook_id = ? AND idempotency_key = ?`,
      [webhookId, key],
    );
    return row && readKeyed(row);
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
    const [oldest] = await this.db.select(`SELECT id FROM delivery_recoveries WHERE ${open} ORDER BY id LIMIT 1`, [
      sqlTimestamp(now),
      token,
    ]);
    if (oldest === undefined) return undefined;
    const next = Column.int(oldest.id);
    const claimed = await this.db.execute(`UPDATE delivery_recoveries SET claim_token = ?, claimed_until = ? WHERE id = ? AND ${open}`, [
      token,
      sqlTimestamp(leaseUntil),
      next,
      sqlTimestamp(now),
      token,
    ]);
    if (claimed !== 1) return undefined;
    const [row] = await this.db.select(
      `SELECT id, webhook_id AS webhookId, since, until, after_created_at AS afterCreatedAt, after_id AS afterId
         FROM delivery_recoveries WHERE id = ?`,
      [next],
    );
    const { id, webhookId, since, until, afterCreatedAt, afterId } = readClaimed(row);
    return { id, webhookId, window: { since, until }, after: afterId === null ? undefined : [afterCreatedAt!, afterId] };
  }

  /** Whether this instance still holds the claim of the recovery, its row locked until the caller's transaction (a batch's) ends. */
  async lockClaim(tx: Transaction, id: number, token: string): Promise<boolean> {
    const [mine] = await tx.select(
      `SELECT id FROM delivery_recoveries WHERE id = ? AND claim_token = ? AND done_at IS NULL${tx.dialect.forUpdate}`,
      [id, token],
    );
    return mine !== undefined;
  }

  /**
   * One batch, in the caller's transaction: up to RECOVERY_BATCH of the webhook's failed
   * deliveries in the window, after the position reached, are sent again through the one
   * statement that requeues a delivery; the position (and a claim's lease) moves on with them.
   * The same condition as the count's, and no clock's: a delivery is made pending at most once
   * per recovery (the position passes it). (A last attempt compared with the request's moment
   * would compare the delivering instance's clock with the asking one's: a failed delivery
   * counted, and then never sent.)
   * Done when fewer remain, or when the webhook is disabled (nothing is sent to it; a recovery
   * after enabling it sends the rest). The webhook is read with a shared lock, as the fan-out
   * does: a disabling is wholly before or after the batch, so no delivery is left pending on a
   * disabled webhook. Run in RECOVERY_TRANSACTION.
   */
  async batch(tx: Transaction, recovery: ClaimedRecovery, now: Date, leaseUntil: Date | null): Promise<BatchOutcome> {
    const { dialect } = tx;
    const { after } = recovery;
    const [enabled] = await tx.select(
      `SELECT ${WebhookSql.id} AS id FROM ${WebhookSql.withSource} WHERE ${WebhookSql.id} = ? AND ${WebhookSql.enabled}${dialect.forShare}`,
      [recovery.webhookId],
    );
    const position = after && sqlTimestamp(new Date(after[0]));
    const rows =
      enabled === undefined
        ? []
        : await tx.select(
            `SELECT id, created_at AS createdAt FROM deliveries${dialect.indexedBy(INDEX)}
              WHERE ${FAILED_IN_WINDOW}${after ? ' AND created_at >= ? AND (created_at > ? OR id > ?)' : ''}
              ORDER BY created_at, id LIMIT ?${dialect.forUpdate}`,
            [
              recovery.webhookId,
              sqlTimestamp(recovery.window.since),
              sqlTimestamp(recovery.window.until),
              ...(after ? [position!, position!, after[1]] : []),
              RECOVERY_BATCH,
            ],
          );
    const batch = rows.map(readBatchRow);
    const recovered = await this.transitions.requeue(
      tx,
      batch.map((row) => row.id),
      now,
      'retry',
    );
    const last = batch[batch.length - 1];
    const reached: RecoveryPosition | undefined = last === undefined ? after : [last.createdAt, last.id];
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
    const rows = await this.db.select('SELECT id FROM delivery_recoveries WHERE done_at < ? ORDER BY done_at LIMIT ?', [
      sqlTimestamp(before),
      batch,
    ]);
    if (rows.length === 0) return 0;
    return this.db.execute(
      varying(`DELETE FROM delivery_recoveries WHERE id IN (${placeholders(rows.length)})`),
      rows.map((row) => Column.int(row.id)),
    );
  }
}
