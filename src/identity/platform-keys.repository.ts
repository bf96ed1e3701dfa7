import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { Column, rowReader } from '../database/row-reader';
import { sqlTimestamp } from '../database/sql-dialect';
import { placeholders, varying } from '../database/sql-executor';
import type { Transaction } from '../database/unit-of-work';
import type { LivePlatformKey, NewPlatformKey, PlatformKeyRef, PlatformKeyView } from './platform-key.model';

// The Database executor: authentication reads a key on every platform request (a hot path), and
// every change runs in its service's transaction with its operator audit entry.

/** A key with its organizations: one row per organization of a restricted key, one row for any other. */
const SELECT_KEYS = `SELECT k.id AS id, k.name AS name, k.scoped AS scoped, k.created_at AS createdAt, k.last_used_at AS lastUsedAt,
        k.expires_at AS expiresAt, k.revoked_at AS revokedAt, o.organization_id AS organizationId
   FROM platform_keys k
   LEFT JOIN platform_key_organizations o ON o.platform_key_id = k.id`;

const moment = Column.nullable(Column.moment);
const readKey = rowReader({
  id: Column.int,
  name: Column.text,
  scoped: Column.positive,
  createdAt: Column.moment,
  lastUsedAt: moment,
  expiresAt: moment,
  revokedAt: moment,
  /** One row per organization of a restricted key (LEFT JOIN): null on an unrestricted key's one row. */
  organizationId: Column.nullable(Column.int),
});
type KeyRow = ReturnType<typeof readKey>;
const readLive = rowReader({ id: Column.int, scoped: Column.positive, lastUsedAt: moment, organizationId: Column.nullable(Column.int) });
const readId = rowReader({ id: Column.int });

/** A key's organizations from its joined rows: null for every organization, else the ids (none left is possible). */
function organizationsOf(rows: readonly Pick<KeyRow, 'scoped' | 'organizationId'>[]): number[] | null {
  if (!rows[0].scoped) return null;
  return rows.flatMap((row) => (row.organizationId === null ? [] : [row.organizationId]));
}

/** One key's rows of SELECT_KEYS, as `platform-key list` shows it. */
function viewOf(rows: readonly KeyRow[]): PlatformKeyView {
  const [row] = rows;
  return {
    id: row.id,
    name: row.name,
    organizations: organizationsOf(rows),
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}

/** Platform keys (docs/api.md 3, 8, 10.1) and their organizations. */
@Injectable()
export class PlatformKeysRepository {
  constructor(private readonly db: Database) {}

  /** The live key with this hash (unrevoked, unexpired): one indexed lookup, its organizations joined. */
  async findLive(tokenHash: string): Promise<LivePlatformKey | undefined> {
    const rows = await this.db.select(
      `SELECT k.id AS id, k.scoped AS scoped, k.last_used_at AS lastUsedAt, o.organization_id AS organizationId
         FROM platform_keys k
         LEFT JOIN platform_key_organizations o ON o.platform_key_id = k.id
        WHERE k.token_hash = ? AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ${this.db.dialect.now})`,
      [tokenHash],
    );
    if (rows.length === 0) return undefined;
    const keys = rows.map(readLive);
    return { id: keys[0].id, organizations: organizationsOf(keys), lastUsedAt: keys[0].lastUsedAt };
  }

  /** Sets the key's last use to `at` unless a later one is stored (another instance may have written first). */
  async recordUse(id: number, at: Date): Promise<void> {
    const stamp = sqlTimestamp(at);
    await this.db.execute('UPDATE platform_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)', [
      stamp,
      id,
      stamp,
    ]);
  }

  /** Those of `organizations` that do not exist; the others read in share mode, so that none can go before the caller's transaction ends. */
  async lockOrganizations(tx: Transaction, organizations: readonly number[]): Promise<number[]> {
    const found = await tx.select(
      varying(`SELECT id FROM organizations WHERE id IN (${placeholders(organizations.length)})${tx.dialect.forShare}`),
      organizations,
    );
    const existing = new Set(found.map((row) => readId(row).id));
    return organizations.filter((id) => !existing.has(id));
  }

  /** Inserts the key and its organizations: its id. */
  async insert(tx: Transaction, key: NewPlatformKey): Promise<number> {
    const { organizations } = key;
    const id = await tx.insert('INSERT INTO platform_keys (name, token_hash, scoped, expires_at, created_at) VALUES (?, ?, ?, ?, ?)', [
      key.name,
      key.tokenHash,
      organizations === null ? 0 : 1,
      key.expiresAt && sqlTimestamp(key.expiresAt),
      sqlTimestamp(key.createdAt),
    ]);
    if (organizations !== null && organizations.length > 0) {
      await tx.execute(
        varying(
          `INSERT INTO platform_key_organizations (platform_key_id, organization_id) VALUES ${organizations.map(() => '(?, ?)').join(', ')}`,
        ),
        organizations.flatMap((organizationId) => [id, organizationId]),
      );
    }
    return id;
  }

  /** The key that `ref` names, its row locked until the caller's transaction ends; undefined when none matches. */
  async lockKey(tx: Transaction, ref: PlatformKeyRef): Promise<PlatformKeyView | undefined> {
    const [where, param] = 'id' in ref ? ['k.id = ?', ref.id] : ['k.token_hash = ?', ref.tokenHash];
    const rows = await tx.select(`${SELECT_KEYS} WHERE ${where} ORDER BY o.organization_id${tx.dialect.forUpdate}`, [param]);
    return rows.length === 0 ? undefined : viewOf(rows.map(readKey));
  }

  async revoke(tx: Transaction, id: number, at: Date): Promise<void> {
    await tx.execute('UPDATE platform_keys SET revoked_at = ? WHERE id = ?', [sqlTimestamp(at), id]);
  }

  /** Every key, oldest first, with its organizations. */
  async list(): Promise<PlatformKeyView[]> {
    const rows = (await this.db.select(`${SELECT_KEYS} ORDER BY k.id, o.organization_id`)).map(readKey);
    const byKey = new Map<number, KeyRow[]>();
    for (const row of rows) {
      if (!byKey.has(row.id)) byKey.set(row.id, []);
      byKey.get(row.id)!.push(row);
    }
    return [...byKey.values()].map(viewOf);
  }
}
