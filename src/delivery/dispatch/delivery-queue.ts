import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { SealedSecret } from '../../crypto/secret-box';
import { Database } from '../../database/database';
import { dateOf, sqlTimestamp } from '../../database/sql-dialect';
import { EVENT_URL_COLUMNS } from '../../webhooks/entities/webhook.entity';
import type { DeliveryState } from '../delivery.model';
import { sealedFromJson } from '../events/sealed-json';

// The Database executor: the claim needs FOR UPDATE SKIP LOCKED, which TypeORM's API does not give.

/** A delivery this instance holds the lease of, with what its attempt needs. */
export interface ClaimedDelivery {
  readonly id: number;
  readonly claimToken: string;
  /** When the claim was made (ms since the epoch, this instance's clock): its lease runs from here. */
  readonly claimedAt: number;
  /** Attempts made before this one. */
  readonly attempts: number;
  /** Attempts made before the last replay (the schedule starts again after them). */
  readonly retryFrom: number;
  readonly organizationId: number;
  readonly eventId: string;
  readonly eventType: string;
  readonly payload: SealedSecret;
  /** Undefined when the webhook is gone (deleted while the delivery was claimed). */
  readonly webhook?: {
    readonly name: string;
    readonly url: string;
    readonly secret: SealedSecret;
    /** A rotated-out secret that still signs until `expiresAt` (docs/api.md 10.7). */
    readonly previous?: { readonly secret: SealedSecret; readonly expiresAt: Date };
  };
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

/**
 * The database as the queue (docs/api.md 10.5, 10.6), in the manner of Solid Queue and Hook0:
 * a due delivery is claimed by moving its `next_attempt_at` to the end of a lease and stamping
 * it with a random claim token, in a transaction whose SELECT skips rows other instances are
 * claiming (FOR UPDATE SKIP LOCKED; SQLite has one writer), at READ COMMITTED so that its
 * locking read takes no gap locks (they would hold off the inserts of new due deliveries, and
 * ingest with them). The claimer's attempt ends the claim only if its token is still there: a delivery whose lease ran out (its claimer died or hung)
 * is due again and claimed anew, and the late claimer's result is dropped. At least once, never
 * twice at the same time.
 */
@Injectable()
export class DeliveryQueue {
  constructor(private readonly db: Database) {}

  /**
   * Claims up to `limit` due deliveries and reads what their attempts need, in one transaction:
   * when the database goes away before the commit, nothing is claimed (only a commit whose
   * answer is lost leaves claims behind, which their lease gives back).
   */
  async claim(limit: number, now: Date, leaseMs: number): Promise<ClaimedDelivery[]> {
    const claimToken = randomBytes(12).toString('base64url');
    const rows = await this.db.transaction(async (tx) => {
      const due = await tx.select<{ id: number }>(
        `SELECT id FROM deliveries WHERE state = 'pending' AND next_attempt_at <= ?
          ORDER BY next_attempt_at LIMIT ${Math.max(1, Math.floor(limit))}${this.db.dialect.forUpdateSkipLocked}`,
        [sqlTimestamp(now)],
      );
      if (due.length === 0) return [];
      const ids = due.map((row) => Number(row.id));
      await tx.execute(`UPDATE deliveries SET next_attempt_at = ?, claim_token = ? WHERE id IN (${list(ids.length)})`, [
        sqlTimestamp(new Date(now.getTime() + leaseMs)),
        claimToken,
        ...ids,
      ]);
      return tx.select<Record<string, unknown>>(
        `SELECT d.id AS id, d.attempts AS attempts, d.retry_from AS retryFrom, d.organization_id AS organizationId, e.id AS eventId,
                e.type AS eventType, e.payload AS payload, w.name AS webhookName, w.secret AS secret, w.secret_key_id AS secretKeyId,
                w.previous_secret AS previousSecret, w.previous_secret_key_id AS previousKeyId, w.previous_secret_expires_at AS previousExpiresAt,
                w.url AS url, ${Object.values(EVENT_URL_COLUMNS).map((column) => `w.${column} AS ${column}`).join(', ')}
           FROM deliveries d JOIN events e ON e.id = d.event_id LEFT JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.id IN (${list(ids.length)})`,
        ids,
      );
    }, { readCommitted: true });
    return rows.map((row) => toClaimed(row, claimToken, now.getTime()));
  }

  /**
   * Ends a claim with an attempt's outcome; false when the claim was lost (its lease ran out, or
   * the delivery was cancelled). Two statements without a transaction: the delivery's row is
   * the truth, the attempt's record (the log of docs/api.md 10.7) follows it.
   */
  async complete(delivery: Pick<ClaimedDelivery, 'id' | 'claimToken'>, record: AttemptRecord): Promise<boolean> {
    const updated = await this.db.execute(
      `UPDATE deliveries SET state = ?, attempts = attempts + 1, next_attempt_at = ?, claim_token = NULL,
              last_attempt_at = ?, last_duration_ms = ?, last_status = ?, last_error = ?
        WHERE id = ? AND claim_token = ? AND state = 'pending'`,
      [
        record.state,
        record.nextAttemptAt && sqlTimestamp(record.nextAttemptAt),
        sqlTimestamp(record.at),
        record.durationMs,
        record.status,
        record.error,
        delivery.id,
        delivery.claimToken,
      ],
    );
    if (updated === 0) return false;
    await this.db.execute('INSERT INTO delivery_attempts (delivery_id, at, duration_ms, status, error) VALUES (?, ?, ?, ?, ?)', [
      delivery.id,
      sqlTimestamp(record.at),
      record.durationMs,
      record.status,
      record.error,
    ]);
    return true;
  }

  /** Ends a claim without an attempt (the webhook is gone): the delivery is cancelled. */
  async cancel(delivery: Pick<ClaimedDelivery, 'id' | 'claimToken'>): Promise<void> {
    await this.db.execute(
      "UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL, claim_token = NULL WHERE id = ? AND claim_token = ?",
      [delivery.id, delivery.claimToken],
    );
  }

  /** Gives claims back unattempted (shutdown): due at once for any instance. */
  async release(deliveries: readonly Pick<ClaimedDelivery, 'id' | 'claimToken'>[], now: Date): Promise<void> {
    for (const { id, claimToken } of deliveries) {
      await this.db.execute("UPDATE deliveries SET next_attempt_at = ?, claim_token = NULL WHERE id = ? AND claim_token = ? AND state = 'pending'", [
        sqlTimestamp(now),
        id,
        claimToken,
      ]);
    }
  }

  /** The queue's depth (pending deliveries) and when the oldest due one became due. */
  async stats(now: Date): Promise<{ pending: number; oldestDueAt: Date | null }> {
    const [row] = await this.db.select<{ pending: number; oldest: Date | string | null }>(
      `SELECT COUNT(*) AS pending, MIN(CASE WHEN next_attempt_at <= ? THEN next_attempt_at END) AS oldest
         FROM deliveries WHERE state = 'pending'`,
      [sqlTimestamp(now)],
    );
    const oldest = row?.oldest ?? null;
    return { pending: Number(row?.pending ?? 0), oldestDueAt: oldest === null ? null : dateOf(oldest) };
  }
}

function toClaimed(row: Record<string, unknown>, claimToken: string, claimedAt: number): ClaimedDelivery {
  const eventType = String(row.eventType);
  const column = EVENT_URL_COLUMNS[eventType as keyof typeof EVENT_URL_COLUMNS] as string | undefined;
  const url = (column !== undefined ? (row[column] as string | null) : null) ?? (row.url as string | null);
  return {
    id: Number(row.id),
    claimToken,
    claimedAt,
    attempts: Number(row.attempts),
    retryFrom: Number(row.retryFrom),
    organizationId: Number(row.organizationId),
    eventId: String(row.eventId),
    eventType,
    payload: sealedFromJson(row.payload),
    webhook:
      row.webhookName === null || url === null
        ? undefined
        : {
            name: String(row.webhookName),
            url,
            secret: { ciphertext: String(row.secret), keyId: String(row.secretKeyId) },
            previous:
              row.previousSecret === null || row.previousExpiresAt === null
                ? undefined
                : {
                    secret: { ciphertext: String(row.previousSecret), keyId: String(row.previousKeyId) },
                    expiresAt: dateOf(row.previousExpiresAt as Date | string),
                  },
          },
  };
}
