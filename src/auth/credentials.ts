import type { IncomingHttpHeaders } from 'node:http';
import { isWellFormedToken } from '../crypto/opaque-token';
import { SESSION_COOKIE } from './auth-policy';

/** The session token of a Cookie header, if it has one of the right shape. */
export function sessionTokenOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const pair of cookieHeader.split(';')) {
    const eq = pair.indexOf('=');
    if (eq === -1 || pair.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    return isWellFormedToken(value) ? value : undefined;
  }
  return undefined;
}

const BEARER = /^bearer ([^\s]+)$/i;

/**
 * The bearer token of a wallet-extension request (docs/api.md 4): exactly `Bearer <token>`, scheme
 * in any case, one space. A request carrying any cookie or a `sessionid` header has none:
 * that is a browser, and browsers never get provisioning credentials.
 */
export function walletTokenOf(headers: IncomingHttpHeaders): string | undefined {
  if (headers.cookie !== undefined || headers.sessionid !== undefined) return undefined;
  const match = BEARER.exec(headers.authorization ?? '');
  return match && isWellFormedToken(match[1]) ? match[1] : undefined;
}
