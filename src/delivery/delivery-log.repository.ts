import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import type { DeliveryState } from './delivery.model';

// The Database executor: the log is one indexed range scan (ix_deliveries_webhook, or
// ix_deliveries_webhook_state with a state filter), newest first by id.

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

@Injectable()
export class DeliveryLogRepository {
  constructor(private readonly db: Database) {}

  async findWebhookId(organizationId: number, name: string): Promise<number | undefined> {
    const [row] = await this.db.select<{ id: number }>(
      'SELECT w.id AS id FROM webhook_sources s JOIN webhooks w ON w.source_id = s.id WHERE s.organization_id = ? AND w.name = ?',
      [organizationId, name],
    );
    return row && Number(row.id);
  }

  /** Up to `limit` deliveries of the webhook, newest first, with ids below `beforeId` when given. */
  page(webhookId: number, { state, beforeId, limit }: { state: DeliveryState | null; beforeId: number | undefined; limit: number }): Promise<DeliveryRow[]> {
    const where = ['d.webhook_id = ?'];
    const params: (string | number)[] = [webhookId];
    if (state !== null) {
      where.push('d.state = ?');
      params.push(state);
    }
    if (beforeId !== undefined) {
      where.push('d.id < ?');
      params.push(beforeId);
    }
    return this.db.select<DeliveryRow & Record<string, unknown>>(
      `SELECT ${COLUMNS} FROM deliveries d JOIN events e ON e.id = d.event_id
        WHERE ${where.join(' AND ')} ORDER BY d.id DESC LIMIT ${Math.floor(limit)}`,
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
}
