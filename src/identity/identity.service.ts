import { Injectable } from '@nestjs/common';
import { Errors } from '../common/domain-error';
import { isUniqueViolation } from '../database/database-errors';
import { hashToken, newOpaqueToken } from '../crypto/opaque-token';
import { Role } from './entities/member.entity';
import { IdentityRepository } from './identity.repository';

export interface IssuedToken {
  token: string;
  expiresAt: Date;
}

export const DEFAULT_SESSION_TTL_SECONDS = 7 * 24 * 3600;
export const DEFAULT_WALLET_TOKEN_TTL_SECONDS = 3600;

/** The operator's side of identity (docs/api.md 8): who exists, who belongs where, who holds a token. */
@Injectable()
export class IdentityService {
  constructor(private readonly identities: IdentityRepository) {}

  createOrganization(name: string): Promise<number> {
    return this.identities.createOrganization(name);
  }

  async createUser(email: string, name: string | null): Promise<number> {
    try {
      return await this.identities.createUser(email, name);
    } catch (error) {
      if (isUniqueViolation(error)) throw Errors.conflict(`a user with email ${email} exists`);
      throw error;
    }
  }

  /** Adds the membership, or changes its role: one row per pair. */
  async setMembership(organizationId: number, userId: number, role: Role): Promise<void> {
    await this.requireOrganization(organizationId);
    await this.requireUser(userId);
    await this.identities.setMembership(organizationId, userId, role);
  }

  async createSession(userId: number, activeOrganizationId: number | null, ttlSeconds: number): Promise<IssuedToken> {
    await this.requireUser(userId);
    if (activeOrganizationId !== null) await this.requireMembership(activeOrganizationId, userId);
    const issued = issue(ttlSeconds);
    await this.identities.createSession({ tokenHash: hashToken(issued.token), userId, activeOrganizationId, expiresAt: issued.expiresAt });
    return issued;
  }

  async revokeSession(token: string): Promise<void> {
    if (!(await this.identities.revokeSession(hashToken(token), new Date()))) {
      throw Errors.notFound('no such session token');
    }
  }

  async createWalletToken(userId: number, ttlSeconds: number): Promise<IssuedToken> {
    await this.requireUser(userId);
    const issued = issue(ttlSeconds);
    await this.identities.createAccessToken({ tokenHash: hashToken(issued.token), kind: 'wallet_extension', userId, expiresAt: issued.expiresAt });
    return issued;
  }

  async revokeWalletToken(token: string): Promise<void> {
    if (!(await this.identities.revokeAccessToken(hashToken(token), 'wallet_extension', new Date()))) {
      throw Errors.notFound('no such wallet token');
    }
  }

  async createPlatformKey(name: string): Promise<{ id: number; token: string }> {
    const token = newOpaqueToken();
    return { id: await this.identities.createPlatformKey(name, hashToken(token)), token };
  }

  async revokePlatformKey(token: string): Promise<void> {
    if (!(await this.identities.revokePlatformKey(hashToken(token), new Date()))) throw Errors.notFound('no such platform key');
  }

  /** 404 not found unless the organization exists (event ingest names it). */
  async requireOrganization(id: number): Promise<void> {
    if (!(await this.identities.organizationExists(id))) throw Errors.notFound(`no organization ${id}`);
  }

  async requireMembership(organizationId: number, userId: number): Promise<void> {
    await this.requireOrganization(organizationId);
    if (!(await this.identities.isMember(organizationId, userId))) {
      throw Errors.invalid(`user ${userId} is not a member of organization ${organizationId}`);
    }
  }

  async requireUser(id: number): Promise<void> {
    if (!(await this.identities.userExists(id))) throw Errors.notFound(`no user ${id}`);
  }
}

function issue(ttlSeconds: number): IssuedToken {
  // Milliseconds dropped: the stored expiry and the printed one are the same instant.
  const expiresAt = new Date(Math.floor((Date.now() + ttlSeconds * 1000) / 1000) * 1000);
  return { token: newOpaqueToken(), expiresAt };
}
