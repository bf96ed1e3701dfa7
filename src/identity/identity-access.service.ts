import { Injectable } from '@nestjs/common';
import type { AccessTokenKind } from './entities/access-token.entity';
import { IdentityAccess, SessionGrant } from './identity-access';
import { IdentityRepository } from './identity.repository';
import type { LivePlatformKey } from './platform-key.model';
import { PlatformKeysRepository } from './platform-keys.repository';

/** The port authentication holds (IdentityAccess), over identity's repositories. */
@Injectable()
export class IdentityAccessService implements IdentityAccess {
  constructor(
    private readonly identities: IdentityRepository,
    private readonly platformKeys: PlatformKeysRepository,
  ) {}

  findSessionGrants(tokenHash: string): Promise<SessionGrant[]> {
    return this.identities.findSessionGrants(tokenHash);
  }

  findAccessTokenUser(tokenHash: string, kind: AccessTokenKind): Promise<number | undefined> {
    return this.identities.findAccessTokenUser(tokenHash, kind);
  }

  findLivePlatformKey(tokenHash: string): Promise<LivePlatformKey | undefined> {
    return this.platformKeys.findLive(tokenHash);
  }

  recordPlatformKeyUse(keyId: number, at: Date): Promise<void> {
    return this.platformKeys.recordUse(keyId, at);
  }
}
