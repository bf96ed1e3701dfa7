import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { type TraceContext, traceHeadersOf } from '../../tracing/trace-context';
import type { ReceiverAuth } from '../../webhooks/receiver-auth';
import type { AttemptOutcome } from './attempt-outcome';
import { OAuthTokens } from './oauth/oauth-tokens';
import { ClientCertificate, PinnedHttp } from './pinned-http';

/** The receiver's answer body is read at most this far, then dropped (docs/api.md 10.5). */
const MAX_ANSWER_BYTES = 1024;

/** How an attempt authenticates to its receiver (docs/api.md 10.16): its webhook's auth settings, opened. */
export interface ReceiverCredentials {
  readonly webhookId: number;
  readonly auth: ReceiverAuth;
}

/** One attempt's request: the organization whose webhook it is, the URL, the headers, the held body and how it authenticates. */
export interface AttemptRequest {
  readonly organizationId: number;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The held one: undici writes it as it is, no copy per attempt. */
  readonly body: Buffer;
  /** The attempt's span (docs/api.md 10.17): its `traceparent` goes beside the signed headers, and a token request hangs from it. */
  readonly trace: TraceContext;
  readonly credentials?: ReceiverCredentials;
}

/**
 * One attempt's HTTP request (docs/api.md 10.4, 10.5): a POST through PinnedHttp (the URL rules
 * again, every address vetted, the connection pinned to one, the proxy) under one deadline, its
 * answer read at most MAX_ANSWER_BYTES far and dropped. A webhook with auth (10.16) sends an
 * OAuth access token (OAuthTokens: a failed token request is the attempt's `auth failed`, and
 * nothing is sent; the token request and the attempt share the deadline; a 401 drops the token),
 * or presents its client certificate in TLS.
 */
@Injectable()
export class WebhookSender {
  private readonly timeoutMs: number;

  constructor(
    private readonly http: PinnedHttp,
    private readonly tokens: OAuthTokens,
    config: AppConfig,
  ) {
    this.timeoutMs = config.delivery.timeoutMs;
  }

  async send({ organizationId, url, headers: signed, body, trace, credentials }: AttemptRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const signal = AbortSignal.timeout(this.timeoutMs);
    const headers: Record<string, string> = { ...signed, ...traceHeadersOf(trace) };
    let sent = headers;
    let client: ClientCertificate | undefined;
    let refused = (): void => undefined;
    if (credentials !== undefined) {
      const { webhookId, auth } = credentials;
      // The webhook and its settings: a token or a connection is never used under another identity.
      const identity = createHash('sha256').update(JSON.stringify(credentials)).digest('base64url');
      if (auth.type === 'mtls') client = { identity, certificate: auth.certificate, privateKey: auth.privateKey };
      else {
        // The attempt's own span is the token request's parent too (docs/api.md 10.17).
        const got = await this.tokens.tokenFor({ organizationId, webhookId, identity }, auth, signal, trace);
        if (!got.ok) return { kind: 'auth failed', failure: got.failure, durationMs: took() };
        sent = bearing(headers, got.token.value);
        refused = () => this.tokens.refused(webhookId, identity, got.token.value);
      }
    }
    const answer = await this.http.post({ url, headers: sent, body, signal, readAtMost: MAX_ANSWER_BYTES, organizationId, client });
    if (answer.kind !== 'answered') return { kind: answer.kind, durationMs: took() };
    if (answer.status === 401) refused();
    const retryAfterSeconds = retryAfterOf(answer.headers['retry-after']);
    return {
      kind: 'answered',
      status: answer.status,
      durationMs: took(),
      ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
    };
  }
}

/** The headers with the access token as the only `authorization` (a custom one beside oauth2 is refused on write: docs/api.md 10.16). */
function bearing(headers: Record<string, string>, token: string): Record<string, string> {
  const others = Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'authorization');
  return { ...Object.fromEntries(others), authorization: `Bearer ${token}` };
}

function retryAfterOf(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
