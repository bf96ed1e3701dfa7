import { Injectable } from '@nestjs/common';
import type { AuditChange } from '../../audit/audit.model';
import { AuditRepository } from '../../audit/audit.repository';
import type { SealedSecret } from '../../crypto/secret-box';
import { Database } from '../../database/database';
import { isUniqueViolation } from '../../database/database-errors';
import { dateOf, sqlTimestamp } from '../../database/sql-dialect';
import { sealedToJson } from './sealed-json';

// The Database executor: ingest is a measured hot path (W6): two statements in one transaction.

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
  constructor(
    private readonly db: Database,
    private readonly audit: AuditRepository,
  ) {}

  /**
   * The event and one pending delivery, due now, for each webhook its organization has, in one
   * transaction of two statements. The fan-out's INSERT … SELECT reads the source row and the
   * webhooks with shared locks (InnoDB does so for the SELECT of an INSERT … SELECT): a webhook
   * write, which locks the source row exclusively, is wholly before or after it, and events of
   * one organization do not wait for each other. 'duplicate' when the idempotency key is taken.
   */
  insert(event: NewEvent): Promise<{ deliveries: number } | 'duplicate'> {
    const at = sqlTimestamp(event.createdAt);
    return this.db
      .transaction(async (tx) => {
        await tx.execute(
          `INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, payload, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [event.id, event.organizationId, event.type, event.idempotencyKey ?? null, event.requestHash, sealedToJson(event.payload), at],
        );
        const deliveries = await tx.execute(
          `INSERT INTO deliveries (event_id, organization_id, webhook_id, state, attempts, next_attempt_at, created_at)
           SELECT ?, ?, w.id, 'pending', 0, ?, ? FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id
            WHERE s.organization_id = ?`,
          [event.id, event.organizationId, at, at, event.organizationId],
        );
        return { deliveries };
      })
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) return 'duplicate' as const;
        throw error;
      });
  }

  /**
   * A `webhook.test` event and its one delivery, to that webhook only (docs/api.md 10.7), and
   * its audit entry, in one transaction; the delivery's id.
   */
  insertForWebhook(event: NewEvent, webhookId: number, change: AuditChange): Promise<number> {
    const at = sqlTimestamp(event.createdAt);
    return this.db.transaction(async (tx) => {
      await tx.execute('INSERT INTO events (id, organization_id, type, request_hash, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        event.id,
        event.organizationId,
        event.type,
        event.requestHash,
        sealedToJson(event.payload),
        at,
      ]);
      const deliveryId = await tx.insert(
        `INSERT INTO deliveries (event_id, organization_id, webhook_id, state, attempts, next_attempt_at, created_at)
         VALUES (?, ?, ?, 'pending', 0, ?, ?)`,
        [event.id, event.organizationId, webhookId, at, at],
      );
      await this.audit.record(tx, change, event.createdAt);
      return deliveryId;
    });
  }

  async findByIdempotencyKey(organizationId: number, key: string): Promise<KeyedEvent | undefined> {
    const [row] = await this.db.select<{ id: string; requestHash: string; deliveryCount: number; createdAt: Date | string }>(
      `SELECT e.id AS id, e.request_hash AS requestHash, e.created_at AS createdAt,
              (SELECT COUNT(*) FROM deliveries d WHERE d.event_id = e.id) AS deliveryCount
         FROM events e WHERE e.organization_id = ? AND e.idempotency_key = ?`,
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
