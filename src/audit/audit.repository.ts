import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { Column, rowReader } from '../database/row-reader';
import { placeholders, varying } from '../database/sql-executor';
import { sqlTimestamp } from '../database/sql-dialect';
import type { Transaction } from '../database/unit-of-work';
import { UserSql } from '../identity/user-sql';
import type { AuditChange } from './audit.model';

// The Database executor: entries are written inside the transactions of the changes they record.

const readEntry = rowReader({
  id: Column.int,
  at: Column.moment,
  actorUserId: Column.nullable(Column.int),
  actorEmail: Column.nullable(Column.text),
  action: Column.text,
  webhook: Column.nullable(Column.text),
  cardId: Column.nullable(Column.int),
  fields: Column.json<string[]>(),
});

/** An entry as a page reads it, with its actor's email (null: the service itself, or the operator); a webhook's or a card's. */
export type AuditRow = ReturnType<typeof readEntry>;

@Injectable()
export class AuditRepository {
  constructor(private readonly db: Database) {}

  /** Writes `change` by `actorUserId` on `tx`, the transaction of the change itself. */
  async insert(tx: Transaction, change: AuditChange, actorUserId: number | null, at: Date): Promise<void> {
    await tx.execute(
      'INSERT INTO audit_entries (organization_id, at, actor_user_id, action, webhook, card_id, fields) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [
        change.organizationId,
        sqlTimestamp(at),
        actorUserId,
        change.action,
        'webhook' in change ? change.webhook : null,
        'card' in change ? change.card : null,
        JSON.stringify(change.fields),
      ],
    );
  }

  /** The organization's entries, newest first, below `beforeId` when given (one range scan of ix_audit_entries_organization). */
  async page(organizationId: number, beforeId: number | undefined, limit: number): Promise<AuditRow[]> {
    const rows = await this.db.select(
      `SELECT a.id AS id, a.at AS at, a.actor_user_id AS actorUserId, ${UserSql.email} AS actorEmail, a.action AS action, a.webhook AS webhook,
              a.card_id AS cardId, a.fields AS fields
         FROM (SELECT * FROM audit_entries WHERE organization_id = ?${beforeId === undefined ? '' : ' AND id < ?'} ORDER BY id DESC LIMIT ?) a
         ${UserSql.joinedOn('a.actor_user_id')}
        ORDER BY a.id DESC`,
      beforeId === undefined ? [organizationId, limit] : [organizationId, beforeId, limit],
    );
    return rows.map(readEntry);
  }

  /** Retention: deletes up to `batch` entries older than `before`; how many went. */
  async pruneBatch(before: Date, batch: number): Promise<number> {
    const rows = await this.db.select('SELECT id FROM audit_entries WHERE at < ? ORDER BY at LIMIT ?', [sqlTimestamp(before), batch]);
    if (rows.length === 0) return 0;
    return this.db.execute(
      varying(`DELETE FROM audit_entries WHERE id IN (${placeholders(rows.length)})`),
      rows.map((row) => Column.int(row.id)),
    );
  }
}
