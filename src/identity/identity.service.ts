import { Injectable } from '@nestjs/common';
import { Errors } from '../common/domain-error';
import { hashToken, newOpaqueToken } from '../crypto/opaque-token';
import type { Transaction } from '../database/unit-of-work';
import { UnitOfWork } from '../database/unit-of-work';
import { Role } from './entities/member.entity';
import { IdentityRepository } from './identity.repository';
import { IdentityLookups, IdentityOperations, IssuedPlatformKey, IssuedToken, OperatorChanges, PlatformKeyOptions } from './identity-ports';
import { OperatorAuditRepository, OperatorAuditView, OperatorChange } from './operator-audit.repository';
import type { PlatformKeyView } from './platform-key.model';
import { PlatformKeysRepository } from './platform-keys.repository';

/** A key for more organizations is better left unrestricted: authentication reads the list on every request. */
export const MAX_PLATFORM_KEY_ORGANIZATIONS = 100;

/**
 * The operator's side of identity (docs/api.md 8): who exists, who belongs where, who holds a
 * token. The other features reach it through the ports of identity-ports.ts, each shaped by its
 * callers, never as this class.
 */
@Injectable()
export class IdentityService implements IdentityLookups, OperatorChanges, IdentityOperations {
  constructor(
    private readonly identities: IdentityRepository,
    private readonly platformKeys: PlatformKeysRepository,
    private readonly operatorAuditEntries: OperatorAuditRepository,
    private readonly work: UnitOfWork,
  ) {}

  createOrganization(name: string): Promise<number> {
    return this.identities.createOrganization(name);
  }

  async createUser(email: string, name: string | null): Promise<number> {
    const id = await this.identities.createUser(email, name);
    if (id === 'email taken') throw Errors.conflict(`a user with email ${email} exists`);
    return id;
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
    await this.identities.createAccessToken({
      tokenHash: hashToken(issued.token),
      kind: 'wallet_extension',
      userId,
      expiresAt: issued.expiresAt,
    });
    return issued;
  }

  async revokeWalletToken(token: string): Promise<void> {
    if (!(await this.identities.revokeAccessToken(hashToken(token), 'wallet_extension', new Date()))) {
      throw Errors.notFound('no such wallet token');
    }
  }

  /**
   * A new platform key (docs/api.md 3, 8); its token is shown this once. Without options it
   * sends events for every organization and never expires, as docs/api.md 3 has it.
   */
  async createPlatformKey(name: string, { organizations, expiresInDays }: PlatformKeyOptions = {}): Promise<IssuedPlatformKey> {
    const scope = organizations === undefined ? null : [...new Set(organizations)].sort((a, b) => a - b);
    if (scope !== null && (scope.length === 0 || scope.length > MAX_PLATFORM_KEY_ORGANIZATIONS)) {
      throw Errors.invalid(`a platform key names 1 to ${MAX_PLATFORM_KEY_ORGANIZATIONS} organizations`);
    }
    const createdAt = new Date();
    // Milliseconds dropped: the stored expiry and the printed one are the same instant.
    const expiresAt = expiresInDays === undefined ? null : new Date(Math.floor(createdAt.getTime() / 1000 + expiresInDays * 86_400) * 1000);
    const token = newOpaqueToken();
    const key = { name, tokenHash: hashToken(token), organizations: scope, expiresAt, createdAt };
    // The organizations are read in share mode first, so none can go before the commit; the key,
    // its organizations and its audit entry are written together, or nothing is.
    const created = await this.work.run(async (tx): Promise<{ missing: number[] } | { id: number }> => {
      const missing = scope === null ? [] : await this.platformKeys.lockOrganizations(tx, scope);
      if (missing.length > 0) return { missing };
      const id = await this.platformKeys.insert(tx, key);
      await this.operatorAuditEntries.record(
        tx,
        { action: 'platform_key.created', platformKeyId: id, platformKeyName: name, organizations: scope },
        createdAt,
      );
      return { id };
    });
    if ('missing' in created) throw Errors.notFound(`no organization ${created.missing.join(', ')}`);
    return { id: created.id, token, organizations: scope, expiresAt };
  }

  listPlatformKeys(): Promise<PlatformKeyView[]> {
    return this.platformKeys.list();
  }

  /**
   * Revokes the key this token is, or the key with this id, and records it, in one transaction
   * that locks the key's row first. Revoking a revoked key is not an error; it changes and
   * records nothing.
   */
  async revokePlatformKey(key: string | { id: number }): Promise<void> {
    const ref = typeof key === 'string' ? { tokenHash: hashToken(key) } : key;
    const at = new Date();
    const found = await this.work.run(async (tx) => {
      const locked = await this.platformKeys.lockKey(tx, ref);
      if (locked === undefined) return false;
      if (locked.revokedAt !== null) return true;
      await this.platformKeys.revoke(tx, locked.id, at);
      const change = {
        action: 'platform_key.revoked',
        platformKeyId: locked.id,
        platformKeyName: locked.name,
        organizations: locked.organizations,
      } as const;
      await this.operatorAuditEntries.record(tx, change, at);
      return true;
    });
    if (!found) {
      throw Errors.notFound(typeof key === 'string' ? 'no such platform key' : `no platform key ${key.id}`);
    }
  }

  /** The operator audit trail (platform keys created and revoked, recoveries made from the CLI), newest first. */
  operatorAudit(limit: number): Promise<OperatorAuditView[]> {
    return this.operatorAuditEntries.newest(limit);
  }

  /** Records an operator's change made through another feature (a recovery, docs/api.md 10.14) in that change's transaction. */
  recordOperatorChange(tx: Transaction, change: OperatorChange, at: Date): Promise<void> {
    return this.operatorAuditEntries.record(tx, change, at);
  }

  /** Those of `ids` that name no organization (a batch of events names them, docs/api.md 10.1.1). */
  missingOrganizations(ids: readonly number[]): Promise<number[]> {
    return this.identities.missingOrganizations(ids);
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
