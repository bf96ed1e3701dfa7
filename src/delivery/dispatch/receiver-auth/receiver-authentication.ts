import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { SpanParent } from '../../../tracing/tracing';
import type { ReceiverAuth } from '../../../webhooks/receiver-auth';
import type { ClientCertificate } from '../pinned-http';
import { OAuthTokens, TokenFailure } from './oauth-tokens';

/** How an attempt authenticates to its receiver (docs/api.md 10.16): its webhook's auth settings, opened. */
export interface ReceiverCredentials {
  readonly webhookId: number;
  readonly auth: ReceiverAuth;
}

/** What an attempt presents: its headers (an access token among them), its client certificate, and what a 401 does; or why it cannot. */
export type Presented =
  | {
      readonly ok: true;
      readonly headers: Record<string, string>;
      readonly client?: ClientCertificate;
      /** The receiver answered 401: the token it refused is dropped, and the next attempt gets a new one. */
      readonly refused: () => void;
    }
  | { readonly ok: false; readonly failure: TokenFailure };

const NOTHING_TO_DROP = (): void => undefined;

/**
 * The receiver-authentication room (docs/api.md 10.16), OAuth 2.0 and mutual TLS side by side:
 * an oauth2 webhook's attempt sends an access token (OAuthTokens: a failed token request is the
 * attempt's `auth failed`, and nothing is sent; a 401 drops the token), an mtls webhook's presents
 * its client certificate in TLS. A token or a connection is used under one identity only: the
 * webhook and its settings, so a changed auth never uses what the old one got.
 */
@Injectable()
export class ReceiverAuthentication {
  constructor(private readonly tokens: OAuthTokens) {}

  /** `trace`: the attempt's span, a token request's parent; `signal`: the attempt's deadline. */
  async present(
    organizationId: number,
    headers: Record<string, string>,
    credentials: ReceiverCredentials | undefined,
    trace: SpanParent,
    signal: AbortSignal,
  ): Promise<Presented> {
    if (credentials === undefined) return { ok: true, headers, refused: NOTHING_TO_DROP };
    const { webhookId, auth } = credentials;
    const identity = createHash('sha256').update(JSON.stringify(credentials)).digest('base64url');
    if (auth.type === 'mtls') {
      return {
        ok: true,
        headers,
        client: { identity, certificate: auth.certificate, privateKey: auth.privateKey },
        refused: NOTHING_TO_DROP,
      };
    }
    const got = await this.tokens.tokenFor({ organizationId, webhookId, identity }, auth, signal, trace);
    if (!got.ok) return { ok: false, failure: got.failure };
    return {
      ok: true,
      headers: bearing(headers, got.token.value),
      refused: () => this.tokens.refused(webhookId, identity, got.token.value),
    };
  }
}

/** The headers with the access token as the only `authorization` (a custom one beside oauth2 is refused on write: docs/api.md 10.16). */
function bearing(headers: Record<string, string>, token: string): Record<string, string> {
  const others = Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization');
  return { ...Object.fromEntries(others), authorization: `Bearer ${token}` };
}
