import { Injectable } from '@nestjs/common';
import type { Actor } from '../../audit/audit.model';
import { AuditRepository } from '../../audit/audit.repository';
import { Database } from '../../database/database';
import { sqlTimestamp } from '../../database/sql-dialect';
import type { DeliveryState } from '../delivery.model';

// The Database executor: a page of the log is one indexed range scan (ix_deliveries_webhook, or
// ix_deliveries_webhook_state with a state filter) in id order; test/delivery/delivery-log-plan.e2e-spec.ts
// checks MariaDB's plan at 200 000 deliveries.

/** A delivery as the log reads it (datetimes as the driver gives them). */
export interface DeliveryRow {
  id: number;
  state: DeliveryState;
  attempts: number;
  createdAt: Date | string;
  nextAttemptAt: Date | string | null;
  lastAttemptAt: Date | string | null;
  lastDurationMs: number | null;
  lastStatus: number | null;
  lastError: string | null;
  eventId: string;
  eventType: string;
  eventCreatedAt: Date | string;
}

export interface AttemptRow {
  at: Date | string;
  durationMs: number;
  status: number | null;
  error: string | null;
}

const COLUMNS = `d.id AS id, d.state AS state, d.attempts AS attempts, d.created_at AS createdAt, d.next_attempt_at AS nextAttemptAt,
  d.last_attempt_at AS lastAttemptAt, d.last_duration_ms AS lastDurationMs, d.last_status AS lastStatus, d.last_error AS lastError,
  e.id AS eventId, e.type AS eventType, e.created_at AS eventCreatedAt`;

/**
 * A page of a webhook's log: the deliveries are taken first (a derived table with its LIMIT, so
 * that no planner starts from the events and sorts), then joined to their events. Parameters:
 * the webhook id, then the state and the id bound when given, then the page's size.
 */
export function pageSql({ state, before }: { state: boolean; before: boolean }): string {
  const where = ['webhook_id = ?', ...(state ? ['state = ?'] : []), ...(before ? ['id < ?'] : [])];
  return `SELECT ${COLUMNS}
    FROM (SELECT * FROM deliveries WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?) d
    JOIN events e ON e.id = d.event_id
   ORDER BY d.id DESC`;
}

@Injectable()
export class DeliveryLogRepository {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditRepository,
  ) {}

  /** Up to `limit` deliveries of the webhook, newest first, with ids below `beforeId` when given. */
  page(
    webhookId: number,
    { state, beforeId, limit }: { state: DeliveryState | null; beforeId: number | undefined; limit: number },
  ): Promise<DeliveryRow[]> {
    const params = [webhookId, ...(state === null ? [] : [state]), ...(beforeId === undefined ? [] : [beforeId]), limit];
    return this.db.select<DeliveryRow & Record<string, unknown>>(
      pageSql({ state: state !== null, before: beforeId !== undefined }),
      params,
    );
  }

  async findOne(webhookId: number, id: number): Promise<DeliveryRow | undefined> {
    const [row] = await this.db.select<DeliveryRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.webhook_id = ? AND d.id = ?`,
      [webhookId, id],
    );
    return row;
  }

  attempts(deliveryId: number): Promise<AttemptRow[]> {
    return this.db.select<AttemptRow & Record<string, unknown>>(
      'SELECT at, duration_ms AS durationMs, status, error FROM delivery_attempts WHERE delivery_id = ? ORDER BY id',
      [deliveryId],
    );
  }

  /**
   * A replay (docs/api.md 10.7): a succeeded or failed delivery is pending again, due now, in
   * the lane of first attempts (someone is waiting for it); a pending one not in flight is
   * brought forward; either way the retry schedule starts again, and the audit entry is written
   * in the same transaction. What the delivery's state was, or undefined when the webhook has no
   * such delivery (nothing is written for those, nor for a cancelled one); 'disabled' when the
   * webhook is, read under a share lock of its row, so that a disabling is wholly before the
   * replay or after it (and fails the pending delivery).
   */
  replay(
    webhook: { id: number; name: string; organizationId: number },
    id: number,
    actor: Actor,
    now: Date,
  ): Promise<DeliveryState | 'disabled' | undefined> {
    return this.db.transaction(async (tx) => {
      const [owner] = await tx.select<{ disabledAt: unknown }>(
        `SELECT disabled_at AS disabledAt FROM webhooks WHERE id = ?${this.db.dialect.forShare}`,
        [webhook.id],
      );
      if (owner === undefined) return undefined;
      if (owner.disabledAt !== null) return 'disabled';
      const [row] = await tx.select<{ state: DeliveryState }>(
        `SELECT state FROM deliveries WHERE id = ? AND webhook_id = ?${this.db.dialect.forUpdate}`,
        [id, webhook.id],
      );
      if (row === undefined || row.state === 'cancelled') return row?.state;
      await tx.execute(
        `UPDATE deliveries SET state = 'pending', next_attempt_at = ?, retry_from = attempts, lane = 0
          WHERE id = ? AND (state IN ('succeeded', 'failed') OR (state = 'pending' AND claim_token IS NULL))`,
        [sqlTimestamp(now), id],
      );
      await this.audit.record(
        tx,
        {
          organizationId: webhook.organizationId,
          actorUserId: actor.userId,
          action: 'delivery.retried',
          webhook: webhook.name,
          fields: [],
        },
        now,
      );
      return row.state;
    });
  }
}
