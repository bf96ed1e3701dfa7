import { Injectable } from '@nestjs/common';
import { Database } from '../database/database';
import { isUniqueViolation } from '../database/database-errors';
import { Column, rowReader } from '../database/row-reader';
import { sqlTimestamp } from '../database/sql-dialect';
import { placeholders, varying } from '../database/sql-executor';
import { AccessTokenKind } from './entities/access-token.entity';
import { Role } from './entities/member.entity';
import type { SessionGrant } from './identity-access';

// The Database executor: every authenticated request starts with a lookup here (the measured hot path).

export interface NewSession {
  readonly tokenHash: string;
  readonly userId: number;
  readonly activeOrganizationId: number | null;
  readonly expiresAt: Date;
}

export interface NewAccessToken {
  readonly tokenHash: string;
  readonly kind: AccessTokenKind;
  readonly userId: number;
  readonly expiresAt: Date;
}

const readGrant = rowReader({
  userId: Column.int,
  organizationId: Column.nullable(Column.int),
  role: Column.nullable(Column.member<Role>()),
});

/** Organizations, users, memberships, sessions and access tokens (platform keys: PlatformKeysRepository). Tokens appear only hashed. */
@Injectable()
export class IdentityRepository {
  constructor(private readonly db: Database) {}

  /**
   * The memberships a live session may act through, in one statement: with an active
   * organization, that membership (or a row of nulls when the user is not a member); without
   * one, up to two of the user's memberships (two means "ambiguous"). No row: no live session.
   */
  async findSessionGrants(tokenHash: string): Promise<SessionGrant[]> {
    const rows = await this.db.select(
      `SELECT s.user_id AS userId, m.organization_id AS organizationId, m.role AS role
         FROM sessions s
         LEFT JOIN members m
           ON m.user_id = s.user_id
          AND (s.active_organization_id IS NULL OR m.organization_id = s.active_organization_id)
        WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > ${this.db.dialect.now}
        LIMIT 2`,
      [tokenHash],
    );
    return rows.map(readGrant);
  }

  /** The user of a live, unrevoked access token of this kind. */
  async findAccessTokenUser(tokenHash: string, kind: AccessTokenKind): Promise<number | undefined> {
    const [row] = await this.db.select(
      `SELECT user_id AS userId FROM access_tokens
        WHERE token_hash = ? AND kind = ? AND revoked_at IS NULL AND expires_at > ${this.db.dialect.now}`,
      [tokenHash, kind],
    );
    return row && Column.int(row.userId);
  }

  createOrganization(name: string): Promise<number> {
    return this.db.insert('INSERT INTO organizations (name) VALUES (?)', [name]);
  }

  organizationExists(id: number): Promise<boolean> {
    return this.exists('SELECT 1 AS one FROM organizations WHERE id = ?', [id]);
  }

  /** Those of `ids` that name no organization. */
  async missingOrganizations(ids: readonly number[]): Promise<number[]> {
    const found = await this.db.select(varying(`SELECT id FROM organizations WHERE id IN (${placeholders(ids.length)})`), ids);
    const existing = new Set(found.map((row) => Column.int(row.id)));
    return ids.filter((id) => !existing.has(id));
  }

  /** The new user's id, or 'email taken' (the unique index decides, also under races). */
  createUser(email: string, name: string | null): Promise<number | 'email taken'> {
    return this.db.insert('INSERT INTO users (email, name) VALUES (?, ?)', [email, name]).catch((error: unknown) => {
      if (isUniqueViolation(error)) return 'email taken' as const;
      throw error;
    });
  }

  userExists(id: number): Promise<boolean> {
    return this.exists('SELECT 1 AS one FROM users WHERE id = ?', [id]);
  }

  async setMembership(organizationId: number, userId: number, role: Role): Promise<void> {
    await this.db.execute(
      this.db.dialect.upsert('members', ['organization_id', 'user_id', 'role'], ['organization_id', 'user_id'], ['role']),
      [organizationId, userId, role],
    );
  }

  isMember(organizationId: number, userId: number): Promise<boolean> {
    return this.exists('SELECT 1 AS one FROM members WHERE organization_id = ? AND user_id = ?', [organizationId, userId]);
  }

  async createSession({ tokenHash, userId, activeOrganizationId, expiresAt }: NewSession): Promise<void> {
    await this.db.execute('INSERT INTO sessions (token_hash, user_id, active_organization_id, expires_at) VALUES (?, ?, ?, ?)', [
      tokenHash,
      userId,
      activeOrganizationId,
      sqlTimestamp(expiresAt),
    ]);
  }

  /** False when no session has this hash. Revoking twice is not an error. */
  async revokeSession(tokenHash: string, at: Date): Promise<boolean> {
    if (!(await this.exists('SELECT 1 AS one FROM sessions WHERE token_hash = ?', [tokenHash]))) return false;
    await this.db.execute('UPDATE sessions SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL', [sqlTimestamp(at), tokenHash]);
    return true;
  }

  async createAccessToken({ tokenHash, kind, userId, expiresAt }: NewAccessToken): Promise<void> {
    await this.db.execute('INSERT INTO access_tokens (token_hash, kind, user_id, expires_at) VALUES (?, ?, ?, ?)', [
      tokenHash,
      kind,
      userId,
      sqlTimestamp(expiresAt),
    ]);
  }

  /** False when no access token of this kind has this hash. Revoking twice is not an error. */
  async revokeAccessToken(tokenHash: string, kind: AccessTokenKind, at: Date): Promise<boolean> {
    if (!(await this.exists('SELECT 1 AS one FROM access_tokens WHERE token_hash = ? AND kind = ?', [tokenHash, kind]))) return false;
    await this.db.execute('UPDATE access_tokens SET revoked_at = ? WHERE token_hash = ? AND kind = ? AND revoked_at IS NULL', [
      sqlTimestamp(at),
      tokenHash,
      kind,
    ]);
    return true;
  }

  private async exists(sql: string, params: (string | number)[]): Promise<boolean> {
    return (await this.db.select(sql, params)).length > 0;
  }
}
