import { Injectable } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { hashToken } from '../crypto/opaque-token';
import { Errors } from '../common/domain-error';
import type { Role } from '../identity/entities/member.entity';
import { IdentityAccess } from '../identity/identity-access';
import type { PlatformCaller, SessionCaller, WalletCaller } from '../identity/caller';
import { CredentialSource, sessionTokenOf, bearerTokenOf } from './credentials';
import { PlatformKeyUses } from './platform-key-uses';

/** Turns request credentials into a caller, or the error docs/api.md 4 gives, in docs/api.md 4's order. */
@Injectable()
export class Authenticator {
  constructor(
    private readonly identities: IdentityAccess,
    private readonly platformKeyUses: PlatformKeyUses,
  ) {}

  /** 401 no live session; 403 no single organization to act in; 403 role not allowed. */
  async session(headers: IncomingHttpHeaders, roles: readonly Role[]): Promise<SessionCaller> {
    const token = sessionTokenOf(headers.cookie);
    if (token === undefined) throw Errors.unauthorized();
    const sessionKey = hashToken(token);
    const grants = await this.identities.findSessionGrants(sessionKey);
    if (grants.length === 0) throw Errors.unauthorized();
    const [grant] = grants;
    if (grants.length > 1 || grant.organizationId === null || grant.role === null) throw Errors.noOrganization();
    if (!roles.includes(grant.role)) throw Errors.noPermission();
    return { kind: 'session', sessionKey, userId: Number(grant.userId), organizationId: grant.organizationId, role: grant.role };
  }

  /** 401 unless a live wallet-extension token is the only credential. */
  async walletExtension(request: CredentialSource): Promise<WalletCaller> {
    const token = bearerTokenOf(request);
    if (token === undefined) throw Errors.unauthorized();
    const tokenKey = hashToken(token);
    const userId = await this.identities.findAccessTokenUser(tokenKey, 'wallet_extension');
    if (userId === undefined) throw Errors.unauthorized();
    return { kind: 'wallet-extension', tokenKey, userId };
  }

  /**
   * 401 unless a live (unrevoked, unexpired) platform key is the only credential (the same
   * bearer rules); the caller carries the key's organizations, and the use is noted.
   */
  async platform(request: CredentialSource): Promise<PlatformCaller> {
    const token = bearerTokenOf(request);
    if (token === undefined) throw Errors.unauthorized();
    const tokenKey = hashToken(token);
    const key = await this.identities.findLivePlatformKey(tokenKey);
    if (key === undefined) throw Errors.unauthorized();
    this.platformKeyUses.note(key.id, key.lastUsedAt);
    return { kind: 'platform', tokenKey, keyId: key.id, organizations: key.organizations };
  }
}
