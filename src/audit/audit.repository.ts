import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { placeholders, type SqlExecutor, varying } from '../database/sql-executor';
import { sqlTimestamp } from '../database/sql-dialect';
import type { AuditChange } from './audit.model';

// The Database executor: entries are written inside the transactions of the changes they record.

export interface AuditRow {
  id: number;
  at: Date | string;
  actorUserId: number | null;
  actorEmail: string | null;
  action: string;
  webhook: string;
  fields: string;
}

@Injectable()
export class AuditRepository {
  constructor(private readonly db: Database) {}

  /** Records `change` on `tx`, the transaction of the change itself. */
  async record(tx: SqlExecutor, change: AuditChange, at = new Date()): Promise<void> {
    await tx.execute('INSERT INTO audit_entries (organization_id, at, actor_user_id, action, webhook, fields) VALUES (?, ?, ?, ?, ?, ?)', [
      change.organizationId,
      sqlTimestamp(at),
      change.actorUserId,
      change.action,
      change.webhook,
      JSON.stringify(change.fields),
    ]);
  }

  /** The organization's entries, newest first, below `beforeId` when given (one range scan of ix_audit_entries_organization). */
  page(organizationId: number, beforeId: number | undefined, limit: number): Promise<AuditRow[]> {
    return this.db.select<AuditRow & Record<string, unknown>>(
      `SELECT a.id AS id, a.at AS at, a.actor_user_id AS actorUserId, u.email AS actorEmail, a.action AS action, a.webhook AS webhook, a.fields AS fields
         FROM (SELECT * FROM audit_entries WHERE organization_id = ?${beforeId === undefined ? '' : ' AND id < ?'} ORDER BY id DESC LIMIT ?) a
         LEFT JOIN users u ON u.id = a.actor_user_id
        ORDER BY a.id DESC`,
      beforeId === undefined ? [organizationId, limit] : [organizationId, beforeId, limit],
    );
  }

  /** Retention: deletes up to `batch` entries older than `before`; how many went. */
  async pruneBatch(before: Date, batch: number): Promise<number> {
    const rows = await this.db.select<{ id: number }>('SELECT id FROM audit_entries WHERE at < ? ORDER BY at LIMIT ?', [
      sqlTimestamp(before),
      batch,
    ]);
    if (rows.length === 0) return 0;
    return this.db.execute(
      varying(`DELETE FROM audit_entries WHERE id IN (${placeholders(rows.length)})`),
      rows.map((row) => row.id),
    );
  }
}
