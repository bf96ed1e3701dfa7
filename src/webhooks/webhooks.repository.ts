import { Injectable } from '@nestjs/common';
import { SealedSecret } from '../crypto/secret-box';
import { Database, SqlExecutor, SqlValue } from '../database/database';
import { EVENT_FIELDS, EventField, StoredWebhook } from './webhook.model';

const EVENT_COLUMNS: Record<EventField, string> = {
  'transaction.created': 'transaction_created_url',
  'transaction.updated': 'transaction_updated_url',
  'transaction.completed': 'transaction_completed_url',
  'card.updated': 'card_updated_url',
  'user.updated': 'user_updated_url',
};
const URL_COLUMNS = ['url', ...EVENT_FIELDS.map((field) => EVENT_COLUMNS[field])];
const SELECT_WEBHOOK = `SELECT w.name, ${URL_COLUMNS.map((c) => `w.${c}`).join(', ')}
  FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
 WHERE ws.organization_id = ?`;

type WebhookRow = { name: string; url: string } & Record<string, string | null>;

/** Column values of a write: the href of each URL, null for an event URL that is not set. */
export type UrlColumns = { readonly url?: string } & Partial<Record<EventField, string | null>>;

export type InsertOutcome = 'created' | 'name conflict' | 'limit reached';

/**
 * Webhooks and their organization's source row, always addressed by organization first.
 *
 * Every write is one transaction that starts by locking the organization's row in
 * `webhook_sources` (creating it when a webhook is about to be added), so the writes of one
 * organization are serialized on every instance: the cap and the name check see the truth,
 * and deleting the last webhook removes the source row atomically (SPEC 5).
 */
@Injectable()
export class WebhooksRepository {
  constructor(private readonly db: Database) {}

  async listByOrganization(organizationId: number): Promise<(StoredWebhook & { name: string })[]> {
    const rows = await this.db.select<WebhookRow>(SELECT_WEBHOOK, [organizationId]);
    return rows.map(toStored);
  }

  async findByName(organizationId: number, name: string, tx: SqlExecutor = this.db): Promise<StoredWebhook | undefined> {
    const [row] = await tx.select<WebhookRow>(`${SELECT_WEBHOOK} AND w.name = ?`, [organizationId, name]);
    return row && toStored(row);
  }

  /** For the checks made before any DNS work: is the name taken, how many webhooks are there. */
  async census(organizationId: number, name: string): Promise<{ taken: boolean; count: number }> {
    const [row] = await this.db.select<{ total: unknown; taken: unknown }>(
      `SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN w.name = ? THEN 1 ELSE 0 END), 0) AS taken
         FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ?`,
      [name, organizationId],
    );
    return { taken: Number(row.taken) > 0, count: Number(row.total) };
  }

  insert(organizationId: number, name: string, urls: UrlColumns, secret: SealedSecret, max: number): Promise<InsertOutcome> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: true });
      const { taken, count } = await this.countIn(tx, sourceId, name);
      if (taken) return 'name conflict';
      if (count >= max) return 'limit reached';
      await this.insertRow(tx, sourceId, name, urls, secret);
      return 'created';
    });
  }

  /**
   * Legacy create-or-update: replaces every URL of an existing webhook (unset ones cleared)
   * and returns its secret, or creates it with `secret`. Callers racing on one new name are
   * serialized by the source lock, so they all get the secret of the one that created it.
   */
  replace(organizationId: number, name: string, urls: UrlColumns, secret: SealedSecret, max: number): Promise<SealedSecret | 'limit reached'> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: true });
      const [existing] = await tx.select<{ id: number; secret: string; keyId: string }>(
        'SELECT id, secret, secret_key_id AS keyId FROM webhooks WHERE source_id = ? AND name = ?',
        [sourceId, name],
      );
      if (existing) {
        const all = Object.fromEntries(EVENT_FIELDS.map((field) => [field, urls[field] ?? null]));
        await this.updateColumns(tx, 'id = ?', [existing.id], { ...all, url: urls.url });
        return { ciphertext: existing.secret, keyId: existing.keyId };
      }
      const { count } = await this.countIn(tx, sourceId, name);
      if (count >= max) return 'limit reached';
      await this.insertRow(tx, sourceId, name, urls, secret);
      return secret;
    });
  }

  /**
   * Sets only the given columns, so concurrent patches of different members both land. Under
   * the source lock like every write: the webhook that answers is the one that was updated,
   * never one a concurrent delete-and-create put in its place.
   */
  patch(organizationId: number, name: string, changes: UrlColumns): Promise<StoredWebhook | undefined> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: false });
      if (sourceId === undefined) return undefined;
      const updated = await this.updateColumns(tx, 'source_id = ? AND name = ?', [sourceId, name], changes);
      if (updated === 0) return undefined;
      return this.findByName(organizationId, name, tx);
    });
  }

  /** False when there was no such webhook. Removes the source row with the last webhook. */
  delete(organizationId: number, name: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const sourceId = await this.lockSource(tx, organizationId, { create: false });
      if (sourceId === undefined) return false;
      if ((await tx.execute('DELETE FROM webhooks WHERE source_id = ? AND name = ?', [sourceId, name])) === 0) return false;
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

  private async countIn(tx: SqlExecutor, sourceId: number, name: string): Promise<{ taken: boolean; count: number }> {
    const [row] = await tx.select<{ total: unknown; taken: unknown }>(
      `SELECT COUNT(*) AS total, COALESCE(SUM(CASE WHEN name = ? THEN 1 ELSE 0 END), 0) AS taken
         FROM webhooks WHERE source_id = ?`,
      [name, sourceId],
    );
    return { taken: Number(row.taken) > 0, count: Number(row.total) };
  }

  private async insertRow(tx: SqlExecutor, sourceId: number, name: string, urls: UrlColumns, secret: SealedSecret): Promise<void> {
    const columns = ['source_id', 'name', ...URL_COLUMNS, 'secret', 'secret_key_id'];
    const values: SqlValue[] = [
      sourceId,
      name,
      urls.url!,
      ...EVENT_FIELDS.map((field) => urls[field] ?? null),
      secret.ciphertext,
      secret.keyId,
    ];
    await tx.execute(`INSERT INTO webhooks (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`, values);
  }

  /** The number of rows matched; undefined when there was nothing to set. */
  private async updateColumns(tx: SqlExecutor, where: string, whereParams: SqlValue[], changes: UrlColumns): Promise<number | undefined> {
    const set = Object.entries(changes)
      .filter(([, value]) => value !== undefined)
      .map(([field, value]): [string, SqlValue] => [field === 'url' ? 'url' : EVENT_COLUMNS[field as EventField], value!]);
    if (set.length === 0) return undefined;
    return tx.execute(
      `UPDATE webhooks SET ${set.map(([column]) => `${column} = ?`).join(', ')}, updated_at = ${this.db.dialect.now} WHERE ${where}`,
      [...set.map(([, value]) => value), ...whereParams],
    );
  }
}

function toStored(row: WebhookRow): StoredWebhook & { name: string } {
  const events: Partial<Record<EventField, string>> = {};
  for (const field of EVENT_FIELDS) {
    const value = row[EVENT_COLUMNS[field]];
    if (value !== null && value !== undefined) events[field] = value;
  }
  return { name: row.name, url: row.url, events };
}
