import type { OAuth2Settings } from '../../../webhooks/receiver-auth';

/*
 * OAuth 2.0's client-credentials grant (RFC 6749 4.4) as docs/api.md 10.16 makes it: the token
 * request, and what its answer must hold. Pure: oauth-tokens.ts sends and reads.
 */

/** An access token (RFC 6749 5.1), and its lifetime in seconds when the answer gave one. */
export interface AccessToken {
  readonly value: string;
  readonly expiresInSeconds?: number;
}

/** RFC 6750 2.1's b64token, 1 to 4096 characters (docs/api.md 10.16). */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]{1,4096}=*$/;
const MAX_TOKEN_LENGTH = 4096;

/** application/x-www-form-urlencoded, as RFC 6749 appendix B and 2.3.1 encode each part. */
const formEncoded = (value: string): string => new URLSearchParams([['', value]]).toString().slice(1);

/**
 * The token request (RFC 6749 4.4.2): the form `grant_type=client_credentials` with `scope` and
 * `audience` when set, the client authenticated with HTTP Basic, its id and secret each
 * form-urlencoded first (2.3.1), a JSON answer asked for.
 */
export function tokenRequestOf({ clientId, clientSecret, scope, audience }: OAuth2Settings): {
  headers: Record<string, string>;
  body: string;
} {
  const form = new URLSearchParams({ grant_type: 'client_credentials' });
  if (scope !== undefined) form.set('scope', scope);
  if (audience !== undefined) form.set('audience', audience);
  const basic = Buffer.from(`${formEncoded(clientId)}:${formEncoded(clientSecret)}`).toString('base64');
  return {
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', authorization: `Basic ${basic}` },
    body: form.toString(),
  };
}

/**
 * The token a 2xx answer's body holds (RFC 6749 5.1), or undefined when it holds none that may be
 * used: not a JSON object, no `access_token` of 1 to 4096 b64token characters, or a `token_type`
 * other than bearer (any case). An `expires_in` that is not a count of seconds is taken as absent.
 */
export function accessTokenOf(body: Buffer | undefined): AccessToken | undefined {
  if (body === undefined) return undefined;
  let answer: unknown;
  try {
    answer = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return undefined;
  const { access_token: value, token_type: type, expires_in: expiresIn } = answer as Record<string, unknown>;
  if (typeof value !== 'string' || value.length > MAX_TOKEN_LENGTH || !B64TOKEN.test(value)) return undefined;
  if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer')) return undefined;
  const seconds = secondsOf(expiresIn);
  return { value, ...(seconds !== undefined && { expiresInSeconds: seconds }) };
}

/** A lifetime as servers write it: a number of seconds, or its digits as a string (some send one). */
function secondsOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  return typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : undefined;
}
