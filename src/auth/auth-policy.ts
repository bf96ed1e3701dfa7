import type { Role } from '../identity/entities/member.entity';
import type { Caller } from '../identity/caller';

/** What a route requires of its caller; routes without a policy are refused (fail closed). */
export type AuthPolicy =
  | { readonly kind: 'session'; readonly roles: readonly Role[] }
  | { readonly kind: 'wallet-extension' }
  | { readonly kind: 'platform' }
  | { readonly kind: 'public' };

export const AUTH_POLICY = 'platform-api:auth-policy';

declare module 'express-serve-static-core' {
  interface Request {
    caller?: Caller;
  }
}

export const SESSION_COOKIE = '__Secure-auth.session_token';
export const SESSION_SCHEME = 'session';
export const WALLET_SCHEME = 'wallet-extension';
export const PLATFORM_SCHEME = 'platform-key';
