import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { Database } from '../database/database';
import { AccessTokenEntity, AccessTokenKind } from './entities/access-token.entity';
import { MemberEntity, Role } from './entities/member.entity';
import { OrganizationEntity } from './entities/organization.entity';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';

/** One membership a live session may act through (organization null: none matched). */
export interface SessionGrant {
  organizationId: number | null;
  role: Role | null;
}

/** Organizations, users, memberships, sessions and access tokens. Tokens appear only hashed. */
@Injectable()
export class IdentityRepository {
  constructor(
    private readonly db: Database,
    @InjectRepository(OrganizationEntity) private readonly organizations: Repository<OrganizationEntity>,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(MemberEntity) private readonly members: Repository<MemberEntity>,
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
    @InjectRepository(AccessTokenEntity) private readonly accessTokens: Repository<AccessTokenEntity>,
  ) {}

  /**
   * The memberships a live session may act through, in one statement: with an active
   * organization, that membership (or a row of nulls when the user is not a member); without
   * one, up to two of the user's memberships (two means "ambiguous"). No row: no live session.
   */
  findSessionGrants(tokenHash: string): Promise<SessionGrant[]> {
    return this.db.select<SessionGrant & Record<string, unknown>>(
      `SELECT m.organization_id AS organizationId, m.role AS role
         FROM sessions s
         LEFT JOIN members m
           ON m.user_id = s.user_id
          AND (s.active_organization_id IS NULL OR m.organization_id = s.active_organization_id)
        WHERE s.token_hash = ? AND s.revoked_at IS NULL AND s.expires_at > ${this.db.dialect.now}
        LIMIT 2`,
      [tokenHash],
    );
  }

  /** The user of a live, unrevoked access token of this kind. */
  async findAccessTokenUser(tokenHash: string, kind: AccessTokenKind): Promise<number | undefined> {
    const [row] = await this.db.select<{ userId: number }>(
      `SELECT user_id AS userId FROM access_tokens
        WHERE token_hash = ? AND kind = ? AND revoked_at IS NULL AND expires_at > ${this.db.dialect.now}`,
      [tokenHash, kind],
    );
    return row?.userId;
  }

  async createOrganization(name: string): Promise<number> {
    return (await this.organizations.save(this.organizations.create({ name }))).id;
  }

  async organizationExists(id: number): Promise<boolean> {
    return this.organizations.existsBy({ id });
  }

  async createUser(email: string, name: string | null): Promise<number> {
    return (await this.users.save(this.users.create({ email, name }))).id;
  }

  async userExists(id: number): Promise<boolean> {
    return this.users.existsBy({ id });
  }

  async setMembership(organizationId: number, userId: number, role: Role): Promise<void> {
    await this.members.upsert({ organizationId, userId, role }, ['organizationId', 'userId']);
  }

  async isMember(organizationId: number, userId: number): Promise<boolean> {
    return this.members.existsBy({ organizationId, userId });
  }

  async createSession(session: Pick<SessionEntity, 'tokenHash' | 'userId' | 'activeOrganizationId' | 'expiresAt'>): Promise<void> {
    await this.sessions.insert({ ...session, revokedAt: null });
  }

  /** False when no session has this hash. Revoking twice is not an error. */
  async revokeSession(tokenHash: string, at: Date): Promise<boolean> {
    if (!(await this.sessions.existsBy({ tokenHash }))) return false;
    await this.sessions.update({ tokenHash, revokedAt: IsNull() }, { revokedAt: at });
    return true;
  }

  async createAccessToken(token: Pick<AccessTokenEntity, 'tokenHash' | 'kind' | 'userId' | 'expiresAt'>): Promise<void> {
    await this.accessTokens.insert({ ...token, revokedAt: null });
  }

  /** False when no access token of this kind has this hash. Revoking twice is not an error. */
  async revokeAccessToken(tokenHash: string, kind: AccessTokenKind, at: Date): Promise<boolean> {
    if (!(await this.accessTokens.existsBy({ tokenHash, kind }))) return false;
    await this.accessTokens.update({ tokenHash, kind, revokedAt: IsNull() }, { revokedAt: at });
    return true;
  }
}
