import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { Column, rowReader } from '../database/row-reader';
import type { Transaction } from '../database/unit-of-work';
import { sqlTimestamp } from '../database/sql-dialect';
import type { OperatorAuditAction } from './entities/operator-audit-entry.entity';

// The Database executor: entries are written inside the transactions of the changes they record.

/**
 * One operator change to record, never a token: a platform key's, with its name and
 * organizations (null: every one); or a recovery of an organization's webhook (`webhook recover`).
 */
export type OperatorChange =
  | {
      readonly action: 'platform_key.created' | 'platform_key.revoked';
      readonly platformKeyId: number;
      readonly platformKeyName: string;
      readonly organizations: readonly number[] | null;
    }
  | { readonly action: 'delivery.recovered'; readonly organization: number; readonly webhook: string };

/** An entry as `audit list` prints it (docs/api.md 8): `platformKey` null and `webhook` named for a recovery. */
export interface OperatorAuditView {
  id: number;
  at: string;
  action: OperatorAuditAction;
  platformKey: { id: number; name: string } | null;
  organizations: number[] | null;
  webhook?: string;
}

const readEntry = rowReader({
  id: Column.int,
  at: Column.moment,
  action: Column.member<OperatorAuditAction>(),
  keyId: Column.nullable(Column.int),
  keyName: Column.nullable(Column.text),
  organizations: Column.nullable(Column.json<number[]>()),
  webhook: Column.nullable(Column.text),
});

/** The operator audit trail (operator_audit_entries): platform keys created and revoked, recoveries made from the CLI. */
@Injectable()
export class OperatorAuditRepository {
  constructor(private readonly db: Database) {}

  /** Records `change` on `tx`, the transaction of the change itself. */
  async record(tx: Transaction, change: OperatorChange, at: Date): Promise<void> {
    const key = change.action === 'delivery.recovered' ? null : change;
    const organizations = change.action === 'delivery.recovered' ? [change.organization] : change.organizations;
    await tx.execute(
      'INSERT INTO operator_audit_entries (at, action, platform_key_id, platform_key_name, organizations, webhook) VALUES (?, ?, ?, ?, ?, ?)',
      [
        sqlTimestamp(at),
        change.action,
        key?.platformKeyId ?? null,
        key?.platformKeyName ?? null,
        organizations === null ? null : JSON.stringify(organizations),
        change.action === 'delivery.recovered' ? change.webhook : null,
      ],
    );
  }

  /** The newest `limit` entries, newest first. */
  async newest(limit: number): Promise<OperatorAuditView[]> {
    const rows = await this.db.select(
      `SELECT id, at, action, platform_key_id AS keyId, platform_key_name AS keyName, organizations, webhook
         FROM operator_audit_entries ORDER BY id DESC LIMIT ?`,
      [limit],
    );
    return rows.map(readEntry).map((row) => ({
      id: row.id,
      at: row.at.toISOString(),
      action: row.action,
      platformKey: row.keyId === null ? null : { id: row.keyId, name: row.keyName! },
      organizations: row.organizations,
      ...(row.webhook === null ? {} : { webhook: row.webhook }),
    }));
  }
}
