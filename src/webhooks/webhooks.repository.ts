import { Injectable } from '@nestjs/common';
import type { Actor } from '../audit/audit.model';
import { AuditRepository } from '../audit/audit.repository';
import { SealedSecret } from '../crypto/secret-box';
import { Database, SqlExecutor, SqlValue } from '../database/database';
import { sqlTimestamp } from '../database/sql-dialect';
import { fieldsOfColumns, storedOfRow, URL_COLUMNS, UrlColumns } from './webhook.mapper';
import { StoredWebhook } from './webhook.model';

// The Database executor: every write locks the organization's source row first (and records its
// audit entry in the same transaction), and the reads are a measured hot path.

const SELECT_WEBHOOK = `SELECT w.name, ${URL_COLUMNS.map((c) => `w.${c}`).join(', ')}
  FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
 WHERE ws.organization_id = ?`;

export type InsertOutcome = 'created' | 'name conflict' | 'limit reached';

/** The members a new webhook sets: for its audit entry. */
const setFields = (urls: UrlColumns) => fieldsOfColumns(urls, (_column, value) => value !== null && value !== undefined);

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
  ) {}

  async listByOrganization(organizationId: number): Promise<(StoredWebhook & { name: string })[]> {
    const rows = await this.db.select(SELECT_WEBHOOK, [organizationId]);
    return rows.map(storedOfRow);
  }

  async findByName(organizationId: number, name: string, tx: SqlExecutor = this.db): Promise<StoredWebhook | undefined> {
    const [row] = await tx.select(`${SELECT_WEBHOOK} AND w.name = ?`, [organizationId, name]);
    return row && storedOfRow(row);
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

  insert(organizationId: number, name: string, urls: UrlColumns, secret: SealedSecret, max: number, actor: Actor): Promise<InsertOutcome> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: true });
      const { taken, count } = await this.countWithName(organizationId, name, tx);
      if (taken) return 'name conflict';
      if (count >= max) return 'limit reached';
      await this.insertRow(tx, sourceId, name, urls, secret);
      await this.audit.record(tx, { organizationId, actorUserId: actor.userId, action: 'webhook.created', webhook: name, fields: setFields(urls) });
      return 'created';
    });
  }

  /**
   * Legacy create-or-update: replaces every URL of an existing webhook (unset ones cleared)
   * and returns its secret, or creates it with `secret`. Callers racing on one new name are
   * serialized by the source lock, so they all get the secret of the one that created it.
   */
  replace(organizationId: number, name: string, urls: UrlColumns, secret: SealedSecret, max: number, actor: Actor): Promise<SealedSecret | 'limit reached'> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: true });
      const [existing] = await tx.select<{ id: number; secret: string; keyId: string } & Record<string, string | null>>(
        `SELECT id, secret, secret_key_id AS keyId, ${URL_COLUMNS.join(', ')} FROM webhooks WHERE source_id = ? AND name = ?`,
        [sourceId, name],
      );
      const change = { organizationId, actorUserId: actor.userId, webhook: name };
      if (existing) {
        await this.updateColumns(tx, 'id = ?', [existing.id], urls);
        const fields = fieldsOfColumns(urls, (column, value) => (existing[column] ?? null) !== (value ?? null));
        await this.audit.record(tx, { ...change, action: 'webhook.updated', fields });
        return { ciphertext: existing.secret, keyId: existing.keyId };
      }
      const { count } = await this.countWithName(organizationId, name, tx);
      if (count >= max) return 'limit reached';
      await this.insertRow(tx, sourceId, name, urls, secret);
      await this.audit.record(tx, { ...change, action: 'webhook.created', fields: setFields(urls) });
      return secret;
    });
  }

  /**
   * Sets only the given columns, so concurrent patches of different members both land. Under
   * the source lock like every write: the webhook that answers is the one that was updated,
   * never one a concurrent delete-and-create put in its place.
   */
  patch(organizationId: number, name: string, changes: UrlColumns, actor: Actor): Promise<StoredWebhook | undefined> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: false });
      if (sourceId === undefined) return undefined;
      const updated = await this.updateColumns(tx, 'source_id = ? AND name = ?', [sourceId, name], changes);
      if (updated === 0) return undefined;
      const fields = fieldsOfColumns(changes, () => true);
      await this.audit.record(tx, { organizationId, actorUserId: actor.userId, action: 'webhook.updated', webhook: name, fields });
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
        [current.ciphertext, current.keyId, previous?.ciphertext ?? null, previous?.keyId ?? null, previousExpiresAt && sqlTimestamp(previousExpiresAt), row.id],
      );
      await this.audit.record(tx, { organizationId, actorUserId: actor.userId, action: 'webhook.secret_rotated', webhook: name, fields: [] });
      return true;
    });
  }

  /** False when there was no such webhook. Removes the source row with the last webhook. */
  delete(organizationId: number, name: string, actor: Actor): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: false });
      if (sourceId === undefined) return false;
      // docs/api.md 10.2: its deliveries that have not succeeded are cancelled, never sent again.
      await tx.execute(
        `UPDATE deliveries SET state = 'cancelled', next_attempt_at = NULL, claim_token = NULL
          WHERE state = 'pending' AND webhook_id = (SELECT id FROM webhooks WHERE source_id = ? AND name = ?)`,
        [sourceId, name],
      );
      if ((await tx.execute('DELETE FROM webhooks WHERE source_id = ? AND name = ?', [sourceId, name])) === 0) return false;
      await this.audit.record(tx, { organizationId, actorUserId: actor.userId, action: 'webhook.deleted', webhook: name, fields: [] });
      const [left] = await tx.select('SELECT 1 AS one FROM webhooks WHERE source_id = ? LIMIT 1', [sourceId]);
      if (!left) await tx.execute('DELETE FROM webhook_sources WHERE id = ?', [sourceId]);
      return true;
    });
  }

  private async lockSource(tx: SqlExecutor, organizationId: number, options: { create: true }): Promise<number>;
  private async lockSource(tx: SqlExecutor, organizationId: number, options: { create: false }): Promise<number | undefined>;
  private async lockSource(tx: SqlExecutor, organizationId: number, { create }: { create: boolean }): Promise<number | undefined> {
    if (create) {
      await tx.execute(this.db.dialect.insertUnlessExists('webhook_sources', ['organization_id'], 'organization_id'), [organizationId]);
    }
    const [row] = await tx.select<{ id: number }>(
      `SELECT id FROM webhook_sources WHERE organization_id = ?${this.db.dialect.forUpdate}`,
      [organizationId],
    );
    return row?.id;
  }

  private async insertRow(tx: SqlExecutor, sourceId: number, name: string, urls: UrlColumns, secret: SealedSecret): Promise<void> {
    const columns = ['source_id', 'name', ...URL_COLUMNS, 'secret', 'secret_key_id'];
    const values: SqlValue[] = [sourceId, name, ...URL_COLUMNS.map((column) => urls[column] ?? null), secret.ciphertext, secret.keyId];
    await tx.execute(`INSERT INTO webhooks (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, values);
  }

  /** The number of rows matched; undefined when there was nothing to set. */
  private async updateColumns(tx: SqlExecutor, where: string, whereParams: SqlValue[], changes: UrlColumns): Promise<number | undefined> {
    const set = Object.entries(changes);
    if (set.length === 0) return undefined;
    return tx.execute(
      `UPDATE webhooks SET ${set.map(([column]) => `${column} = ?`).join(', ')}, updated_at = ${this.db.dialect.now} WHERE ${where}`,
      [...set.map(([, value]) => value), ...whereParams],
    );
  }
}
