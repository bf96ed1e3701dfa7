import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import type { SqlExecutor } from '../database/sql-executor';
import { dateOf, sqlTimestamp } from '../database/sql-dialect';
import type { OperatorAuditAction } from './entities/operator-audit-entry.entity';

// The Database executor: entries are written inside the transactions of the changes they record.

/** One operator change to record: which key, its name and organizations (null: every one); never a token. */
export interface OperatorChange {
  readonly action: OperatorAuditAction;
  readonly platformKeyId: number;
  readonly platformKeyName: string;
  readonly organizations: readonly number[] | null;
}

/** An entry as `audit list` prints it (docs/api.md 8). */
export interface OperatorAuditView {
  id: number;
  at: string;
  action: OperatorAuditAction;
  platformKey: { id: number; name: string };
  organizations: number[] | null;
}

/** The operator audit trail (operator_audit_entries): platform keys created and revoked. */
@Injectable()
export class OperatorAuditRepository {
  constructor(private readonly db: Database) {}

  /** Records `change` on `tx`, the transaction of the change itself. */
  async record(tx: SqlExecutor, change: OperatorChange, at: Date): Promise<void> {
    await tx.execute(
      'INSERT INTO operator_audit_entries (at, action, platform_key_id, platform_key_name, organizations) VALUES (?, ?, ?, ?, ?)',
      [
        sqlTimestamp(at),
        change.action,
        change.platformKeyId,
        change.platformKeyName,
        change.organizations === null ? null : JSON.stringify(change.organizations),
      ],
    );
  }

  /** The newest `limit` entries, newest first. */
  async newest(limit: number): Promise<OperatorAuditView[]> {
    const rows = await this.db.select<{
      id: number;
      at: Date | string;
      action: OperatorAuditAction;
      keyId: number;
      keyName: string;
      organizations: string | null;
    }>(
      `SELECT id, at, action, platform_key_id AS keyId, platform_key_name AS keyName, organizations
         FROM operator_audit_entries ORDER BY id DESC LIMIT ?`,
      [limit],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      at: dateOf(row.at).toISOString(),
      action: row.action,
      platformKey: { id: Number(row.keyId), name: row.keyName },
      organizations: row.organizations === null ? null : (JSON.parse(row.organizations) as number[]),
    }));
  }
}
