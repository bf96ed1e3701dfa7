import type { Role } from './entities/member.entity';

/*
 * Who is acting, once authenticated (docs/api.md 4): the AuthGuard puts one on the request, the
 * controllers and the rate limits read it. Here, beside the identities they name, so that
 * every layer may depend on them.
 */

/** A browser user acting in an organization (docs/api.md 4, webhook operations). */
export interface SessionCaller {
  readonly kind: 'session';
  /** Identifies the session without being its token (the token's hash): for rate limits. */
  readonly sessionKey: string;
  /** Who acts: recorded as the actor of the audit trail (docs/api.md 10.9). */
  readonly userId: number;
  readonly organizationId: number;
  readonly role: Role;
}

/** A wallet extension acting for its user (docs/api.md 4, card provisioning). */
export interface WalletCaller {
  readonly kind: 'wallet-extension';
  /** Identifies the token without being it (its hash): for rate limits. */
  readonly tokenKey: string;
  readonly userId: number;
}

/** The internal platform API, sending events (docs/api.md 10.1). */
export interface PlatformCaller {
  readonly kind: 'platform';
  /** Identifies the key without being it (its hash): for rate limits. */
  readonly tokenKey: string;
  readonly keyId: number;
  /** The organizations the key may send events for; null: every organization. */
  readonly organizations: readonly number[] | null;
}

export type Caller = SessionCaller | WalletCaller | PlatformCaller;
