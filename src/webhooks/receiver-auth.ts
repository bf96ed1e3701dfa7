import { CertificateView, certificateView } from './client-certificate';

/*
 * How a webhook authenticates to its receiver (docs/api.md 10.16): the settings a write takes and
 * an attempt opens (sealed, since they hold the OAuth client secret or the TLS private key), what
 * reads show of them, and the rule they share with the custom headers. No message here ever
 * carries a secret, a key or a token.
 */

/** OAuth 2.0 client credentials (RFC 6749 4.4): the token URL as normalized by the URL rules. */
export interface OAuth2Settings {
  readonly type: 'oauth2';
  readonly tokenUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string;
  readonly audience?: string;
}

/** Mutual TLS: the client certificate (then any intermediates) and its private key, PEM. */
export interface MtlsSettings {
  readonly type: 'mtls';
  readonly certificate: string;
  readonly privateKey: string;
}

/** Everything an attempt needs to authenticate, the secret included: what `auth_secret` seals. */
export type ReceiverAuth = OAuth2Settings | MtlsSettings;

export const AUTH_TYPES = ['oauth2', 'mtls'] as const;

/** What reads show (the `auth` column): never the client secret nor the key. */
export type AuthView =
  | { readonly type: 'oauth2'; readonly tokenUrl: string; readonly clientId: string; readonly scope?: string; readonly audience?: string }
  | { readonly type: 'mtls'; readonly certificate: CertificateView };

/** docs/api.md 10.16: the lengths of the OAuth members, in characters. */
export const OAUTH2_LENGTHS = { clientId: 255, clientSecret: 1024, scope: 1024, audience: 1024 } as const;

/** Only the members of the settings' type, in a fixed order (a DTO instance may carry undefined ones). */
export function settingsOf(given: ReceiverAuth): ReceiverAuth {
  if (given.type === 'mtls') return { type: 'mtls', certificate: given.certificate, privateKey: given.privateKey };
  const { tokenUrl, clientId, clientSecret, scope, audience } = given;
  return {
    type: 'oauth2',
    tokenUrl,
    clientId,
    clientSecret,
    ...(scope !== undefined && { scope }),
    ...(audience !== undefined && { audience }),
  };
}

/** What reads show of valid settings. */
export function authViewOf(settings: ReceiverAuth): AuthView {
  if (settings.type === 'mtls') return { type: 'mtls', certificate: certificateView(settings.certificate) };
  const { clientSecret: _secret, ...shown } = settings;
  return shown;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const optionalText = (value: unknown): string | undefined | false => (value === undefined || isText(value) ? value : false);

/**
 * A webhook's settings as stored, decoded member by member (undefined: not settings of a known
 * type): what an attempt authenticates with, never a cast of what storage gave back.
 */
export function receiverAuthOf(value: unknown): ReceiverAuth | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stored = value as Record<string, unknown>;
  if (stored.type === 'mtls') {
    const { certificate, privateKey } = stored;
    return isText(certificate) && isText(privateKey) ? { type: 'mtls', certificate, privateKey } : undefined;
  }
  if (stored.type !== 'oauth2') return undefined;
  const { tokenUrl, clientId, clientSecret } = stored;
  const scope = optionalText(stored.scope);
  const audience = optionalText(stored.audience);
  if (!isText(tokenUrl) || !isText(clientId) || !isText(clientSecret) || scope === false || audience === false) return undefined;
  return settingsOf({ type: 'oauth2', tokenUrl, clientId, clientSecret, scope, audience });
}

/**
 * docs/api.md 10.15, 10.16: a custom header named `authorization` (any case) cannot go beside
 * oauth2, whose access token the service sends in that header. The problems of a webhook that
 * would have these header names and this type of auth (empty: none).
 */
export function authorizationProblems(headerNames: readonly string[], authType: ReceiverAuth['type'] | undefined): string[] {
  if (authType !== 'oauth2') return [];
  return headerNames
    .filter((name) => name.toLowerCase() === 'authorization')
    .map((name) => `headers: ${name}: not allowed beside auth of type oauth2 (the service sends the access token in it)`);
}
