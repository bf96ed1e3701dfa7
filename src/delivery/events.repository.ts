import { Injectable } from '@nestjs/common';
import type { SealedSecret } from '../crypto/secret-box';
import { Database } from '../database/database';
import { isUniqueViolation } from '../database/database-errors';
import { dateOf, sqlTimestamp } from '../database/sql-dialect';
import { sealedToJson } from './sealed-json';

// The Database executor: ingest is a measured hot path (W6), and its fan-out takes the
// organization's source row in share mode, as webhook writes take it exclusively.

export interface NewEvent {
  readonly id: string;
  readonly organizationId: number;
  readonly type: string;
  readonly idempotencyKey: string | undefined;
  readonly requestHash: string;
  readonly payload: SealedSecret;
  readonly createdAt: Date;
}

/** An event found under an idempotency key. */
export interface KeyedEvent {
  readonly id: string;
  readonly requestHash: string;
  readonly deliveryCount: number;
  readonly createdAt: Date;
}

@Injectable()
export class EventsRepository {
  constructor(private readonly db: Database) {}

  /**
   * The event and one pending delivery, due now, for each webhook its organization has, in one
   * transaction. The source row is read in share mode: a webhook write (which locks it
   * exclusively) is either wholly before the fan-out or wholly after it, and events of one
   * organization do not wait for each other. 'duplicate' when the idempotency key is taken.
   */
  insert(event: NewEvent): Promise<{ deliveries: number } | 'duplicate'> {
    const at = sqlTimestamp(event.createdAt);
    return this.db
      .transaction(async (tx) => {
        await tx.execute(
          `INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, delivery_count, payload, created_at)
           VALUES (?, ?, ?, ?, ?, 0, ?, ?)`,
          [event.id, event.organizationId, event.type, event.idempotencyKey ?? null, event.requestHash, sealedToJson(event.payload), at],
        );
        const [source] = await tx.select<{ id: number }>(
          `SELECT id FROM webhook_sources WHERE organization_id = ?${this.db.dialect.forShare}`,
          [event.organizationId],
        );
        if (source === undefined) return { deliveries: 0 };
        const deliveries = await tx.execute(
          `INSERT INTO deliveries (event_id, organization_id, webhook_id, state, attempts, next_attempt_at, created_at)
           SELECT ?, ?, id, 'pending', 0, ?, ? FROM webhooks WHERE source_id = ?`,
          [event.id, event.organizationId, at, at, source.id],
        );
        if (deliveries > 0) await tx.execute('UPDATE events SET delivery_count = ? WHERE id = ?', [deliveries, event.id]);
        return { deliveries };
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) return 'duplicate' as const;
        throw error;
      });
  }

  async findByIdempotencyKey(organizationId: number, key: string): Promise<KeyedEvent | undefined> {
    const [row] = await this.db.select<{ id: string; requestHash: string; deliveryCount: number; createdAt: Date | string }>(
      `SELECT id, request_hash AS requestHash, delivery_count AS deliveryCount, created_at AS createdAt
         FROM events WHERE organization_id = ? AND idempotency_key = ?`,
      [organizationId, key],
    );
    return row && { ...row, deliveryCount: Number(row.deliveryCount), createdAt: dateOf(row.createdAt) };
  }

  /** Frees an expired idempotency key (older than its window) for a new event. */
  async forgetIdempotencyKey(eventId: string): Promise<void> {
    await this.db.execute('UPDATE events SET idempotency_key = NULL WHERE id = ?', [eventId]);
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
    return this.db.execute(`DELETE FROM events WHERE id IN (${rows.map(() => '?').join(', ')})`, rows.map((row) => row.id));
  }
}
