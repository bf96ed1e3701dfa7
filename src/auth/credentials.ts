import type { IncomingMessage } from 'node:http';
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

/** What a request's credentials are read from: its headers, and the raw list Node keeps of them. */
export type CredentialSource = Pick<IncomingMessage, 'headers' | 'rawHeaders'>;

/**
 * The bearer token of a wallet-extension or platform request (docs/api.md 4, 10.1): exactly one
 * `Authorization` header, exactly `Bearer <token>`, scheme in any case, one space. Node keeps
 * only the first of several `Authorization` headers in `headers`, so they are counted in the raw
 * ones: a second one, whatever it says, means no token. A request carrying any cookie or a
 * `sessionid` header has none either: that is a browser, and browsers never get provisioning
 * credentials nor send events.
 */
export function bearerTokenOf({ headers, rawHeaders }: CredentialSource): string | undefined {
  if (headers.cookie !== undefined || headers.sessionid !== undefined) return undefined;
  if (countOf(rawHeaders, 'authorization') !== 1) return undefined;
  const match = BEARER.exec(headers.authorization ?? '');
  return match && isWellFormedToken(match[1]) ? match[1] : undefined;
}

/** How many times a header was sent (`rawHeaders` alternates names and values). */
function countOf(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === name) count++;
  }
  return count;
}
