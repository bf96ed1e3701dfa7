import { Injectable } from '@nestjs/common';
import type { Actor } from '../audit/audit.model';
import { AuditRepository } from '../audit/audit.repository';
import { SealedSecret } from '../crypto/secret-box';
import { Database } from '../database/database';
import { placeholders, type SqlExecutor, type SqlValue, varying } from '../database/sql-executor';
import { sqlTimestamp } from '../database/sql-dialect';
import {
  EVENT_TYPES_COLUMN,
  fieldsOfColumns,
  HEADER_NAMES_COLUMN,
  RATE_LIMIT_COLUMN,
  storedOfRow,
  URL_COLUMNS,
  WebhookColumns,
} from './webhook.mapper';
import { StoredWebhook } from './webhook.model';
import { WebhookRemovals } from './webhook-removals';

// The Database executor: every write locks the organization's source row first (and records its
// audit entry in the same transaction), and the reads are a measured hot path.

const STORED_COLUMNS = [...URL_COLUMNS, RATE_LIMIT_COLUMN, EVENT_TYPES_COLUMN, HEADER_NAMES_COLUMN, 'disabled_at'];
/** What a write that replaces or merges the headers reads of the stored row. */
const SEALED_HEADERS = 'headers AS sealedHeaders, headers_key_id AS headersKeyId';

const SELECT_WEBHOOK = `SELECT w.name, ${STORED_COLUMNS.map((c) => `w.${c}`).join(', ')}
  FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
 WHERE ws.organization_id = ?`;

export type InsertOutcome = 'created' | 'name conflict' | 'limit reached';

/** A webhook as the delivery feature addresses it: its id, and whether it is disabled. */
export interface WebhookIdentity {
  readonly id: number;
  readonly disabled: boolean;
}

/**
 * A write's custom headers (docs/api.md 10.15), made under the source lock from the stored ones
 * (sealed; null: none): the columns to write, and whether the headers changed (for the audit
 * entry, which cannot compare ciphertexts). It may refuse the result (a DomainError).
 */
export type HeadersWrite = (stored: SealedSecret | null) => { columns: WebhookColumns; changed: boolean };

const sealedHeadersOf = (row: Readonly<Record<string, unknown>>): SealedSecret | null =>
  row.sealedHeaders === null || row.sealedHeaders === undefined
    ? null
    : { ciphertext: String(row.sealedHeaders), keyId: String(row.headersKeyId) };

/** The audit's `fields` with `headers` when a headers write changed them. */
const withHeaders = (fields: string[], written: ReturnType<HeadersWrite> | undefined): string[] =>
  written?.changed ? [...fields, 'headers'] : fields;

/** The members a new webhook sets: for its audit entry. */
const setFields = (columns: WebhookColumns) => fieldsOfColumns(columns, (_column, value) => value !== null && value !== undefined);

/** The members whose value `columns` changes from the stored row's: for an update's audit entry. */
const changedFields = (stored: Readonly<Record<string, unknown>>, columns: WebhookColumns) =>
  fieldsOfColumns(columns, (column, value) => (stored[column] ?? null) !== (value ?? null));

/**
 * Webhooks and their organization's source row, always addressed by organization first.
 *
 * Every write is one transaction that starts by locking the organization's row in
 * `webhook_sources` (creating it when a webhook is about to be added), so the writes of one
 * organization are serialized on every instance: the cap and the name check see the truth,
 * and deleting the last webhook removes the source row atomically (docs/api.md 5).
 */
@Injectable()
export class WebhooksRepository {
  constructor(
    private readonly db: Database,
    private readonly audit: AuditRepository,
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
    const [row] = await this.db.select<{ id: number; disabledAt: unknown }>(
      `SELECT w.id AS id, w.disabled_at AS disabledAt FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ? AND w.name = ?`,
      [organizationId, name],
    );
    return row && { id: Number(row.id), disabled: row.disabledAt !== null };
  }

  /**
   * How many webhooks the organization has, and whether `name` is one of them: for the checks
   * made before any DNS work, and again inside a write once the source row is locked.
   */
  async countWithName(organizationId: number, name: string, tx: SqlExecutor = this.db): Promise<{ taken: boolean; count: number }> {
    const [row] = await tx.select<{ total: unknown; taken: unknown }>(
      `SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN w.name = ? THEN 1 ELSE 0 END), 0) AS taken
         FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ?`,
      [name, organizationId],
    );
    return { taken: Number(row.taken) > 0, count: Number(row.total) };
  }

  insert(
    organizationId: number,
    name: string,
    columns: WebhookColumns,
    secret: SealedSecret,
    max: number,
    actor: Actor,
    headers?: HeadersWrite,
  ): Promise<InsertOutcome> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: true });
      const { taken, count } = await this.countWithName(organizationId, name, tx);
      if (taken) return 'name conflict';
      if (count >= max) return 'limit reached';
      const written = headers?.(null);
      await this.insertRow(tx, sourceId, name, { ...columns, ...written?.columns }, secret);
      await this.audit.record(tx, {
        organizationId,
        actorUserId: actor.userId,
        action: 'webhook.created',
        webhook: name,
        fields: withHeaders(setFields(columns), written),
      });
      return 'created';
    });
  }

  /**
   * Legacy create-or-update: replaces every URL of an existing webhook (unset ones cleared; a
   * rate limit, event types or headers only when given) and returns its secret and what is
   * stored now, or creates it with `secret`. Callers racing on one new name are serialized by
   * the source lock, so they all get the secret of the one that created it.
   */
  replace(
    organizationId: number,
    name: string,
    columns: WebhookColumns,
    secret: SealedSecret,
    max: number,
    actor: Actor,
    headers?: HeadersWrite,
  ): Promise<{ secret: SealedSecret; webhook: StoredWebhook } | 'limit reached'> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: true });
      const [existing] = await tx.select<{ id: number; secret: string; keyId: string } & Record<string, unknown>>(
        `SELECT id, secret, secret_key_id AS keyId, ${SEALED_HEADERS}, ${STORED_COLUMNS.join(', ')} FROM webhooks WHERE source_id = ? AND name = ?`,
        [sourceId, name],
      );
      const change = { organizationId, actorUserId: actor.userId, webhook: name };
      if (existing) {
        const written = headers?.(sealedHeadersOf(existing));
        await this.updateColumns(tx, existing.id, { ...columns, ...written?.columns });
        await this.audit.record(tx, {
          ...change,
          action: 'webhook.updated',
          fields: withHeaders(changedFields(existing, columns), written),
        });
        return {
          secret: { ciphertext: existing.secret, keyId: existing.keyId },
          webhook: (await this.findByName(organizationId, name, tx))!,
        };
      }
      const { count } = await this.countWithName(organizationId, name, tx);
      if (count >= max) return 'limit reached';
      const written = headers?.(null);
      await this.insertRow(tx, sourceId, name, { ...columns, ...written?.columns }, secret);
      await this.audit.record(tx, { ...change, action: 'webhook.created', fields: withHeaders(setFields(columns), written) });
      return { secret, webhook: (await this.findByName(organizationId, name, tx))! };
    });
  }

  /**
   * Sets only the given columns, so concurrent patches of different members both land (the
   * headers are merged into the stored ones here, under the lock). Under the source lock like
   * every write: the webhook that answers is the one that was updated, never one a concurrent
   * delete-and-create put in its place. The audit entry names only the members whose value
   * changed (docs/api.md 10.9).
   */
  patch(
    organizationId: number,
    name: string,
    changes: WebhookColumns,
    actor: Actor,
    headers?: HeadersWrite,
  ): Promise<StoredWebhook | undefined> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: false });
      if (sourceId === undefined) return undefined;
      const [stored] = await tx.select<{ id: number } & Record<string, unknown>>(
        `SELECT id, ${SEALED_HEADERS}, ${STORED_COLUMNS.join(', ')} FROM webhooks WHERE source_id = ? AND name = ?`,
        [sourceId, name],
      );
      if (stored === undefined) return undefined;
      const written = headers?.(sealedHeadersOf(stored));
      await this.updateColumns(tx, stored.id, { ...changes, ...written?.columns });
      await this.audit.record(tx, {
        organizationId,
        actorUserId: actor.userId,
        action: 'webhook.updated',
        webhook: name,
        fields: withHeaders(changedFields(stored, changes), written),
      });
      return this.findByName(organizationId, name, tx);
    });
  }

  /**
   * Replaces the signing secret under the source lock: `reseal` gets the current one and gives
   * the new current and the previous (null: none kept). False when there is no such webhook.
   */
  rotateSecret(
    organizationId: number,
    name: string,
    previousExpiresAt: Date | null,
    reseal: (current: SealedSecret) => { current: SealedSecret; previous: SealedSecret | null },
    actor: Actor,
  ): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: false });
      if (sourceId === undefined) return false;
      const [row] = await tx.select<{ id: number; secret: string; keyId: string }>(
        'SELECT id, secret, secret_key_id AS keyId FROM webhooks WHERE source_id = ? AND name = ?',
        [sourceId, name],
      );
      if (row === undefined) return false;
      const { current, previous } = reseal({ ciphertext: row.secret, keyId: row.keyId });
      await tx.execute(
        `UPDATE webhooks SET secret = ?, secret_key_id = ?, previous_secret = ?, previous_secret_key_id = ?, previous_secret_expires_at = ?
          WHERE id = ?`,
        [
          current.ciphertext,
          current.keyId,
          previous?.ciphertext ?? null,
          previous?.keyId ?? null,
          previousExpiresAt && sqlTimestamp(previousExpiresAt),
          row.id,
        ],
      );
      await this.audit.record(tx, {
        organizationId,
        actorUserId: actor.userId,
        action: 'webhook.secret_rotated',
        webhook: name,
        fields: [],
      });
      return true;
    });
  }

  /**
   * False when there was no such webhook. What other features registered (WebhookRemovals) is
   * done in the same transaction; the source row goes with the last webhook.
   */
  delete(organizationId: number, name: string, actor: Actor): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: false });
      if (sourceId === undefined) return false;
      const [webhook] = await tx.select<{ id: number }>('SELECT id FROM webhooks WHERE source_id = ? AND name = ?', [sourceId, name]);
      if (webhook === undefined) return false;
      await this.removals.run(tx, Number(webhook.id));
      await tx.execute('DELETE FROM webhooks WHERE id = ?', [webhook.id]);
      await this.audit.record(tx, { organizationId, actorUserId: actor.userId, action: 'webhook.deleted', webhook: name, fields: [] });
      const [left] = await tx.select('SELECT 1 AS one FROM webhooks WHERE source_id = ? LIMIT 1', [sourceId]);
      if (!left) await tx.execute('DELETE FROM webhook_sources WHERE id = ?', [sourceId]);
      return true;
    });
  }

  /** Webhooks disabled across every organization (the operator's metrics, docs/api.md 9): a scan of a small table, every 15 s. */
  async countDisabled(): Promise<number> {
    const [row] = await this.db.select<{ disabled: unknown }>('SELECT COUNT(*) AS disabled FROM webhooks WHERE disabled_at IS NOT NULL');
    return Number(row.disabled);
  }

  /**
   * Disables a webhook (docs/api.md 10.10) in the caller's transaction, under its source lock:
   * its organization and name, or undefined when it is gone or already disabled.
   */
  async disable(tx: SqlExecutor, webhookId: number, at: Date): Promise<{ organizationId: number; name: string } | undefined> {
    const [owner] = await tx.select<{ sourceId: number; organizationId: number }>(
      'SELECT ws.id AS sourceId, ws.organization_id AS organizationId FROM webhooks w JOIN webhook_sources ws ON ws.id = w.source_id WHERE w.id = ?',
      [webhookId],
    );
    if (owner === undefined) return undefined;
    await tx.select(`SELECT id FROM webhook_sources WHERE id = ?${this.db.dialect.forUpdate}`, [owner.sourceId]);
    const [webhook] = await tx.select<{ name: string; disabledAt: unknown }>(
      `SELECT name, disabled_at AS disabledAt FROM webhooks WHERE id = ?${this.db.dialect.forUpdate}`,
      [webhookId],
    );
    if (webhook === undefined || webhook.disabledAt !== null) return undefined;
    await tx.execute('UPDATE webhooks SET disabled_at = ? WHERE id = ?', [sqlTimestamp(at), webhookId]);
    return { organizationId: Number(owner.organizationId), name: webhook.name };
  }

  /**
   * Enables a webhook in the caller's transaction, under the source lock: its id and whether it
   * was disabled, or undefined when the organization has no such webhook.
   */
  async enable(tx: SqlExecutor, organizationId: number, name: string): Promise<{ id: number; wasDisabled: boolean } | undefined> {
    const sourceId = await this.lockSource(tx, organizationId, { create: false });
    if (sourceId === undefined) return undefined;
    const [webhook] = await tx.select<{ id: number; disabledAt: unknown }>(
      'SELECT id, disabled_at AS disabledAt FROM webhooks WHERE source_id = ? AND name = ?',
      [sourceId, name],
    );
    if (webhook === undefined) return undefined;
    if (webhook.disabledAt !== null) await tx.execute('UPDATE webhooks SET disabled_at = NULL WHERE id = ?', [webhook.id]);
    return { id: Number(webhook.id), wasDisabled: webhook.disabledAt !== null };
  }

  private async lockSource(tx: SqlExecutor, organizationId: number, options: { create: true }): Promise<number>;
  private async lockSource(tx: SqlExecutor, organizationId: number, options: { create: false }): Promise<number | undefined>;
  private async lockSource(tx: SqlExecutor, organizationId: number, { create }: { create: boolean }): Promise<number | undefined> {
    if (create) {
      await tx.execute(this.db.dialect.insertUnlessExists('webhook_sources', ['organization_id'], 'organization_id'), [organizationId]);
    }
    const [row] = await tx.select<{ id: number }>(`SELECT id FROM webhook_sources WHERE organization_id = ?${this.db.dialect.forUpdate}`, [
      organizationId,
    ]);
    return row?.id;
  }

  private async insertRow(tx: SqlExecutor, sourceId: number, name: string, columns: WebhookColumns, secret: SealedSecret): Promise<void> {
    const names = ['source_id', 'name', ...Object.keys(columns), 'secret', 'secret_key_id'];
    const values: SqlValue[] = [sourceId, name, ...Object.values(columns), secret.ciphertext, secret.keyId];
    // The columns set vary with the groups given: text, not a prepared statement per combination.
    await tx.execute(varying(`INSERT INTO webhooks (${names.join(', ')}) VALUES (${placeholders(names.length)})`), values);
  }

  private async updateColumns(tx: SqlExecutor, webhookId: number, changes: WebhookColumns): Promise<void> {
    const set = Object.entries(changes);
    if (set.length === 0) return;
    await tx.execute(
      varying(`UPDATE webhooks SET ${set.map(([column]) => `${column} = ?`).join(', ')}, updated_at = ${this.db.dialect.now} WHERE id = ?`),
      [...set.map(([, value]) => value), webhookId],
    );
  }
}
