import { Injectable } from '@nestjs/common';
import { SealedSecret } from '../crypto/secret-box';
import { Database } from '../database/database';
import { Column, rowReader } from '../database/row-reader';
import { placeholders, type Row, type SqlExecutor, type SqlValue, varying } from '../database/sql-executor';
import { sqlTimestamp } from '../database/sql-dialect';
import type { Transaction } from '../database/unit-of-work';
import {
  EVENT_TYPES_COLUMN,
  HEADER_NAMES_COLUMN,
  RATE_LIMIT_COLUMN,
  storedOfRow,
  URL_COLUMNS,
  WebhookColumn,
  WebhookColumns,
  webhookColumns,
} from './webhook.mapper';
import { StoredWebhook } from './webhook.model';
import type { HeldWebhook, WebhookIdentity } from './webhook-access';
import { WebhookRemovals } from './webhook-removals';

// The Database executor: every write locks the organization's source row first, in the
// transaction its service opened (WebhooksService), and the reads are a measured hot path.

const STORED_COLUMNS = [...URL_COLUMNS, RATE_LIMIT_COLUMN, EVENT_TYPES_COLUMN, HEADER_NAMES_COLUMN, 'disabled_at'];
/** The columns a write compares with what it writes: for the audit entry's `fields`. */
const COMPARED_COLUMNS: readonly WebhookColumn[] = [...URL_COLUMNS, RATE_LIMIT_COLUMN, EVENT_TYPES_COLUMN];

const SELECT_WEBHOOK = `SELECT w.name, ${STORED_COLUMNS.map((c) => `w.${c}`).join(', ')}
  FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
 WHERE ws.organization_id = ?`;

/** A webhook as a write reads it under its source's lock: its id, its secret and custom headers (sealed), and its compared columns. */
export interface LockedWebhook {
  readonly id: number;
  readonly secret: SealedSecret;
  /** Its custom headers (docs/api.md 10.15), sealed; null: none. */
  readonly headers: SealedSecret | null;
  readonly columns: WebhookColumns;
}

const sealedOf = (ciphertext: string | null, keyId: string | null): SealedSecret | null =>
  ciphertext === null || keyId === null ? null : { ciphertext, keyId };

const readSecrets = rowReader({
  id: Column.int,
  secret: Column.text,
  keyId: Column.text,
  sealedHeaders: Column.nullable(Column.text),
  headersKeyId: Column.nullable(Column.text),
});
const readText = Column.nullable(Column.text);
const readCompared = (row: Row): WebhookColumns =>
  webhookColumns(
    COMPARED_COLUMNS.map((column) => [
      column,
      column === RATE_LIMIT_COLUMN ? Column.nullable(Column.int)(row[column]) : readText(row[column]),
    ]),
  );
const readIdentity = rowReader({ id: Column.int, disabled: Column.present });
const readCount = rowReader({ total: Column.int, taken: Column.positive });
const readOwner = rowReader({ sourceId: Column.int, organizationId: Column.int });
const readState = rowReader({ name: Column.text, disabled: Column.present });

/**
 * Webhooks and their organization's source row, always addressed by organization first.
 *
 * Every write runs in a transaction its service opened, which starts by locking the
 * organization's row in `webhook_sources` (`lockSource`, creating it when a webhook is about to
 * be added), so the writes of one organization are serialized on every instance: the cap and
 * the name check see the truth, and deleting the last webhook removes the source row atomically
 * (docs/api.md 5). The writes take that transaction first; a read that may also run inside one
 * takes it last.
 */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly db: Database,
    private readonly removals: WebhookRemovals,
  ) {}

  async listByOrganization(organizationId: number): Promise<(StoredWebhook & { name: string })[]> {
    const rows = await this.db.select(SELECT_WEBHOOK, [organizationId]);
    return rows.map(storedOfRow);
  }

  async findByName(organizationId: number, name: string, tx: SqlExecutor = this.db): Promise<StoredWebhook | undefined> {
    const [row] = await tx.select(`${SELECT_WEBHOOK} AND w.name = ?`, [organizationId, name]);
    return row && storedOfRow(row);
  }

  async findIdentity(organizationId: number, name: string): Promise<WebhookIdentity | undefined> {
    const [row] = await this.db.select(
      `SELECT w.id AS id, w.disabled_at AS disabled FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ? AND w.name = ?`,
      [organizationId, name],
    );
    return row && readIdentity(row);
  }

  /**
   * How many webhooks the organization has, and whether `name` is one of them: for the checks
   * made before any DNS work, and again inside a write once the source row is locked.
   */
  async countWithName(organizationId: number, name: string, tx: SqlExecutor = this.db): Promise<{ taken: boolean; count: number }> {
    const [row] = await tx.select(
      `SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN w.name = ? THEN 1 ELSE 0 END), 0) AS taken
         FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ?`,
      [name, organizationId],
    );
    const { total, taken } = readCount(row);
    return { taken, count: total };
  }

  /** Locks the organization's source row (made first with `create`), the first statement of every write: its id, or undefined when it has none. */
  async lockSource(tx: Transaction, organizationId: number, options: { create: true }): Promise<number>;
  async lockSource(tx: Transaction, organizationId: number, options: { create: false }): Promise<number | undefined>;
  async lockSource(tx: Transaction, organizationId: number, { create }: { create: boolean }): Promise<number | undefined> {
    if (create) {
      await tx.execute(tx.dialect.insertUnlessExists('webhook_sources', ['organization_id'], 'organization_id'), [organizationId]);
    }
    const [row] = await tx.select(`SELECT id FROM webhook_sources WHERE organization_id = ?${tx.dialect.forUpdate}`, [organizationId]);
    return row && Column.int(row.id);
  }

  /** The webhook named `name` of the locked source, as a write reads it (no lock of its own: the source's holds it). */
  async findLocked(tx: Transaction, sourceId: number, name: string): Promise<LockedWebhook | undefined> {
    const [row] = await tx.select(
      `SELECT id, secret, secret_key_id AS keyId, headers AS sealedHeaders, headers_key_id AS headersKeyId, ${STORED_COLUMNS.join(', ')}
         FROM webhooks WHERE source_id = ? AND name = ?`,
      [sourceId, name],
    );
    if (row === undefined) return undefined;
    const { id, secret, keyId, sealedHeaders, headersKeyId } = readSecrets(row);
    return { id, secret: { ciphertext: secret, keyId }, headers: sealedOf(sealedHeaders, headersKeyId), columns: readCompared(row) };
  }

  async insert(tx: Transaction, sourceId: number, name: string, columns: WebhookColumns, secret: SealedSecret): Promise<void> {
    const names = ['source_id', 'name', ...Object.keys(columns), 'secret', 'secret_key_id'];
    const values: SqlValue[] = [sourceId, name, ...Object.values(columns), secret.ciphertext, secret.keyId];
    // The columns set vary with the groups given: text, not a prepared statement per combination.
    await tx.execute(varying(`INSERT INTO webhooks (${names.join(', ')}) VALUES (${placeholders(names.length)})`), values);
  }

  /** Sets only the given columns, so concurrent patches of different members both land. */
  async update(tx: Transaction, webhookId: number, changes: WebhookColumns): Promise<void> {
    const set = Object.entries(changes);
    if (set.length === 0) return;
    await tx.execute(
      varying(`UPDATE webhooks SET ${set.map(([column]) => `${column} = ?`).join(', ')}, updated_at = ${tx.dialect.now} WHERE id = ?`),
      [...set.map(([, value]) => value), webhookId],
    );
  }

  /** The signing secrets: the new current one, and the previous one that signs beside it until `previousExpiresAt` (null: none kept). */
  async setSecrets(
    tx: Transaction,
    webhookId: number,
    current: SealedSecret,
    previous: SealedSecret | null,
    previousExpiresAt: Date | null,
  ): Promise<void> {
    await tx.execute(
      `UPDATE webhooks SET secret = ?, secret_key_id = ?, previous_secret = ?, previous_secret_key_id = ?, previous_secret_expires_at = ?
        WHERE id = ?`,
      [
        current.ciphertext,
        current.keyId,
        previous?.ciphertext ?? null,
        previous?.keyId ?? null,
        previousExpiresAt && sqlTimestamp(previousExpiresAt),
        webhookId,
      ],
    );
  }

  /** Deletes the webhook, after what other features registered (WebhookRemovals) is done in the same transaction. */
  async delete(tx: Transaction, webhookId: number): Promise<void> {
    await this.removals.run(tx, webhookId);
    await tx.execute('DELETE FROM webhooks WHERE id = ?', [webhookId]);
  }

  /** The source row goes with the organization's last webhook. */
  async deleteSourceIfEmpty(tx: Transaction, sourceId: number): Promise<void> {
    const [left] = await tx.select('SELECT 1 AS one FROM webhooks WHERE source_id = ? LIMIT 1', [sourceId]);
    if (!left) await tx.execute('DELETE FROM webhook_sources WHERE id = ?', [sourceId]);
  }

  /** Webhooks disabled across every organization (the operator's metrics, docs/api.md 9): a scan of a small table, every 15 s. */
  async countDisabled(): Promise<number> {
    const [row] = await this.db.select('SELECT COUNT(*) AS disabled FROM webhooks WHERE disabled_at IS NOT NULL');
    return Column.int(row.disabled);
  }

  /**
   * Disables a webhook (docs/api.md 10.10) in the caller's transaction, under its source lock:
   * its organization and name, or undefined when it is gone or already disabled.
   */
  async disable(tx: Transaction, webhookId: number, at: Date): Promise<{ organizationId: number; name: string } | undefined> {
    const [found] = await tx.select(
      'SELECT ws.id AS sourceId, ws.organization_id AS organizationId FROM webhooks w JOIN webhook_sources ws ON ws.id = w.source_id WHERE w.id = ?',
      [webhookId],
    );
    if (found === undefined) return undefined;
    const owner = readOwner(found);
    await tx.select(`SELECT id FROM webhook_sources WHERE id = ?${tx.dialect.forUpdate}`, [owner.sourceId]);
    const [row] = await tx.select(`SELECT name, disabled_at AS disabled FROM webhooks WHERE id = ?${tx.dialect.forUpdate}`, [webhookId]);
    if (row === undefined) return undefined;
    const webhook = readState(row);
    if (webhook.disabled) return undefined;
    await tx.execute('UPDATE webhooks SET disabled_at = ? WHERE id = ?', [sqlTimestamp(at), webhookId]);
    return { organizationId: owner.organizationId, name: webhook.name };
  }

  /**
   * Enables a webhook in the caller's transaction, under the source lock: its id and whether it
   * was disabled, or undefined when the organization has no such webhook.
   */
  async enable(tx: Transaction, organizationId: number, name: string): Promise<{ id: number; wasDisabled: boolean } | undefined> {
    const sourceId = await this.lockSource(tx, organizationId, { create: false });
    if (sourceId === undefined) return undefined;
    const [row] = await tx.select('SELECT id, disabled_at AS disabled FROM webhooks WHERE source_id = ? AND name = ?', [sourceId, name]);
    if (row === undefined) return undefined;
    const webhook = readIdentity(row);
    if (webhook.disabled) await tx.execute('UPDATE webhooks SET disabled_at = NULL WHERE id = ?', [webhook.id]);
    return { id: webhook.id, wasDisabled: webhook.disabled };
  }

  /** The webhook's row locked in share mode (WebhookAccess.lockShared says why). */
  async lockShared(tx: Transaction, webhookId: number): Promise<HeldWebhook> {
    const [row] = await tx.select(`SELECT disabled_at AS disabled FROM webhooks WHERE id = ?${tx.dialect.forShare}`, [webhookId]);
    if (row === undefined) return 'gone';
    return Column.present(row.disabled) ? 'disabled' : 'enabled';
  }
}
