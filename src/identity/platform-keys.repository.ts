import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { dateOf, sqlTimestamp } from '../database/sql-dialect';
import { placeholders, varying } from '../database/sql-executor';
import { OperatorAuditRepository } from './operator-audit.repository';
import type { LivePlatformKey, NewPlatformKey, PlatformKeyRef, PlatformKeyView } from './platform-key.model';

// The Database executor: authentication reads a key on every platform request (a hot path), and
// every change writes its operator audit entry in the same transaction.

type Moment = Date | string | null;

interface KeyRow {
  id: number;
  name: string;
  scoped: number | boolean;
  createdAt: Moment;
  lastUsedAt: Moment;
  expiresAt: Moment;
  revokedAt: Moment;
  /** One row per organization of a restricted key (LEFT JOIN): null on an unrestricted key's one row. */
  organizationId: number | null;
}

/** A key with its organizations: one row per organization of a restricted key, one row for any other. */
const SELECT_KEYS = `SELECT k.id AS id, k.name AS name, k.scoped AS scoped, k.created_at AS createdAt, k.last_used_at AS lastUsedAt,
        k.expires_at AS expiresAt, k.revoked_at AS revokedAt, o.organization_id AS organizationId
   FROM platform_keys k
   LEFT JOIN platform_key_organizations o ON o.platform_key_id = k.id`;

const isoOf = (value: Moment): string | null => (value === null ? null : dateOf(value).toISOString());

/** A key's organizations from its joined rows: null for every organization, else the ids (none left is possible). */
function organizationsOf(rows: readonly Pick<KeyRow, 'scoped' | 'organizationId'>[]): number[] | null {
  if (!Number(rows[0].scoped)) return null;
  return rows.filter((row) => row.organizationId !== null).map((row) => Number(row.organizationId));
}

/** One key's rows of SELECT_KEYS, as `platform-key list` shows it. */
function viewOf(rows: readonly KeyRow[]): PlatformKeyView {
  const [row] = rows;
  return {
    id: Number(row.id),
    name: row.name,
    organizations: organizationsOf(rows),
    createdAt: isoOf(row.createdAt)!,
    lastUsedAt: isoOf(row.lastUsedAt),
    expiresAt: isoOf(row.expiresAt),
    revokedAt: isoOf(row.revokedAt),
  };
}

/** Platform keys (docs/api.md 3, 8, 10.1), their organizations, and the operator audit entries of their changes. */
@Injectable()
export class PlatformKeysRepository {
  constructor(
    private readonly db: Database,
    private readonly audit: OperatorAuditRepository,
  ) {}

  /** The live key with this hash (unrevoked, unexpired): one indexed lookup, its organizations joined. */
  async findLive(tokenHash: string): Promise<LivePlatformKey | undefined> {
    const rows = await this.db.select<Pick<KeyRow, 'id' | 'scoped' | 'lastUsedAt' | 'organizationId'> & Record<string, unknown>>(
      `SELECT k.id AS id, k.scoped AS scoped, k.last_used_at AS lastUsedAt, o.organization_id AS organizationId
         FROM platform_keys k
         LEFT JOIN platform_key_organizations o ON o.platform_key_id = k.id
        WHERE k.token_hash = ? AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > ${this.db.dialect.now})`,
      [tokenHash],
    );
    if (rows.length === 0) return undefined;
    const { id, lastUsedAt } = rows[0];
    return { id: Number(id), organizations: organizationsOf(rows), lastUsedAt: lastUsedAt === null ? null : dateOf(lastUsedAt) };
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

  /**
   * Inserts the key, its organizations and its audit entry in one transaction. The organizations
   * are read in share mode first, so none can go before the commit; the ones that do not exist
   * are answered instead, and nothing is written.
   */
  create(key: NewPlatformKey): Promise<{ id: number } | { missingOrganizations: number[] }> {
    return this.db.transaction(async (tx) => {
      const { organizations } = key;
      if (organizations !== null) {
        const found = await tx.select<{ id: number }>(
          varying(`SELECT id FROM organizations WHERE id IN (${placeholders(organizations.length)})${this.db.dialect.forShare}`),
          organizations,
        );
        const existing = new Set(found.map((row) => Number(row.id)));
        const missingOrganizations = organizations.filter((id) => !existing.has(id));
        if (missingOrganizations.length > 0) return { missingOrganizations };
      }
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
      await this.audit.record(
        tx,
        { action: 'platform_key.created', platformKeyId: id, platformKeyName: key.name, organizations },
        key.createdAt,
      );
      return { id };
    });
  }

  /**
   * Revokes the key and records it, in one transaction that locks the key's row first. False
   * when no key matches. Revoking a revoked key is not an error; it changes and records nothing.
   */
  revoke(ref: PlatformKeyRef, at: Date): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [where, param] = 'id' in ref ? ['k.id = ?', ref.id] : ['k.token_hash = ?', ref.tokenHash];
      const rows = await tx.select<KeyRow & Record<string, unknown>>(
        `${SELECT_KEYS} WHERE ${where} ORDER BY o.organization_id${this.db.dialect.forUpdate}`,
        [param],
      );
      if (rows.length === 0) return false;
      const key = viewOf(rows);
      if (key.revokedAt !== null) return true;
      await tx.execute('UPDATE platform_keys SET revoked_at = ? WHERE id = ?', [sqlTimestamp(at), key.id]);
      await this.audit.record(
        tx,
        { action: 'platform_key.revoked', platformKeyId: key.id, platformKeyName: key.name, organizations: key.organizations },
        at,
      );
      return true;
    });
  }

  /** Every key, oldest first, with its organizations. */
  async list(): Promise<PlatformKeyView[]> {
    const rows = await this.db.select<KeyRow & Record<string, unknown>>(`${SELECT_KEYS} ORDER BY k.id, o.organization_id`);
    const byKey = new Map<number, KeyRow[]>();
    for (const row of rows) {
      const id = Number(row.id);
      if (!byKey.has(id)) byKey.set(id, []);
      byKey.get(id)!.push(row);
    }
    return [...byKey.values()].map(viewOf);
  }
}
