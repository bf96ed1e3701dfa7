import type { AccessTokenKind } from './entities/access-token.entity';
import type { Role } from './entities/member.entity';
import type { LivePlatformKey } from './platform-key.model';

/** One membership a live session may act through (organization null: none matched). */
export interface SessionGrant {
  userId: number;
  organizationId: number | null;
  role: Role | null;
}

/**
 * What authentication reads of identities, and the one thing it writes (a platform key's last
 * use): the port IdentityModule exports as the DI token and binds to IdentityAccessService, so
 * that auth/ reaches no repository of identity's (docs/architecture.md). Tokens appear only
 * hashed. Every authenticated request starts here: each method is one indexed lookup.
 */
export abstract class IdentityAccess {
  /**
   * The memberships a live session may act through: with an active organization, that
   * membership (or a row of nulls when the user is not a member); without one, up to two of the
   * user's memberships (two means "ambiguous"). None: no live session.
   */
  abstract findSessionGrants(tokenHash: string): Promise<SessionGrant[]>;

  /** The user of a live, unrevoked access token of this kind. */
  abstract findAccessTokenUser(tokenHash: string, kind: AccessTokenKind): Promise<number | undefined>;

  /** The live platform key with this hash (unrevoked, unexpired), with its organizations. */
  abstract findLivePlatformKey(tokenHash: string): Promise<LivePlatformKey | undefined>;

  /** Sets the key's last use to `at` unless a later one is stored (another instance may have written first). */
  abstract recordPlatformKeyUse(keyId: number, at: Date): Promise<void>;
}
