import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { type SpanParent, Tracing } from '../../../tracing/tracing';
import type { OAuth2Settings } from '../../../webhooks/receiver-auth';
import { PinnedAnswer, PinnedHttp, RequestFailure } from '../pinned-http';
import { AccessTokens, TokenResult } from './access-tokens';
import { accessTokenOf, tokenRequestOf } from './client-credentials';

/** docs/api.md 10.16: the token endpoint's answer is read at most this far. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/**
 * Why a token request failed (docs/api.md 10.16): no answer, or an address refused, as an
 * attempt's request can; or the endpoint's `status`, not 2xx, or a 2xx without a token to use.
 */
export type TokenFailure = { readonly reason: RequestFailure } | { readonly reason: 'answered'; readonly status: number };

/** Whose token: the organization (its share of the kept connections), the webhook and its settings' identity (see AccessTokens). */
export interface TokenOwner {
  readonly organizationId: number;
  readonly webhookId: number;
  readonly identity: string;
}

/**
 * The access tokens of an oauth2 webhook's attempts (docs/api.md 10.16): held per webhook by
 * this instance (AccessTokens: reuse, one request at a time, dropped on a 401), each asked for
 * through PinnedHttp like an attempt (the URL rules, every address vetted, the connection pinned,
 * the proxy; a redirect is an answer that fails). A request has a deadline of its own
 * (DELIVERY_TIMEOUT_MS from when it is made), since the attempts that share it may come later than
 * the one that made it; each attempt waits no longer than its own deadline.
 * The answer is read and dropped here: neither it nor the token is ever logged or stored. Each
 * request has a span (docs/api.md 10.17) under the span of the attempt that made it: the token
 * URL's host, the status and the failure, never the path, the form, the secret or the token.
 */
@Injectable()
export class OAuthTokens {
  private readonly tokens = new AccessTokens<TokenFailure>();
  private readonly timeoutMs: number;

  constructor(
    private readonly http: PinnedHttp,
    private readonly tracing: Tracing,
    config: AppConfig,
  ) {
    this.timeoutMs = config.delivery.timeoutMs;
  }

  /**
   * A token for an attempt of `owner`'s webhook, or why there is none, by `signal` (the attempt's
   * deadline) at the latest. `attempt`: the attempt's span, the parent of a request it makes.
   */
  tokenFor(owner: TokenOwner, settings: OAuth2Settings, signal: AbortSignal, attempt?: SpanParent): Promise<TokenResult<TokenFailure>> {
    return withinDeadline(
      this.tokens.get(owner.webhookId, owner.identity, () => this.request(owner.organizationId, settings, attempt)),
      signal,
    );
  }

  /** The receiver answered 401 to an attempt with `token`: the next attempt gets a new one. */
  refused(webhookId: number, identity: string, token: string): void {
    this.tokens.drop(webhookId, identity, token);
  }

  private async request(
    organizationId: number,
    settings: OAuth2Settings,
    attempt: SpanParent | undefined,
  ): Promise<TokenResult<TokenFailure>> {
    const span = this.tracing.tokenSpan(attempt, settings.tokenUrl);
    const { headers, body } = tokenRequestOf(settings);
    const answer = await this.http.post({
      url: settings.tokenUrl,
      headers,
      body,
      signal: AbortSignal.timeout(this.timeoutMs),
      readAtMost: MAX_TOKEN_ANSWER_BYTES,
      organizationId,
    });
    const result = resultOf(answer);
    span.end(
      {
        'http.response.status_code': answer.kind === 'answered' ? answer.status : undefined,
        'webhook.token.failure': result.ok ? undefined : result.failure.reason,
      },
      !result.ok,
    );
    return result;
  }
}

/** A token request's answer read: a 2xx with a token to use, or why not. */
function resultOf(answer: PinnedAnswer): TokenResult<TokenFailure> {
  if (answer.kind !== 'answered') return { ok: false, failure: { reason: answer.kind } };
  const token = answer.status >= 200 && answer.status < 300 ? accessTokenOf(answer.body) : undefined;
  return token === undefined ? { ok: false, failure: { reason: 'answered', status: answer.status } } : { ok: true, token };
}

const TIMED_OUT: TokenResult<TokenFailure> = { ok: false, failure: { reason: 'timeout' } };

/** `result`, or a timeout once `signal` aborts first. */
function withinDeadline(result: Promise<TokenResult<TokenFailure>>, signal: AbortSignal): Promise<TokenResult<TokenFailure>> {
  if (signal.aborted) return Promise.resolve(TIMED_OUT);
  return new Promise((resolve, reject) => {
    const timedOut = () => resolve(TIMED_OUT);
    signal.addEventListener('abort', timedOut, { once: true });
    result.then(resolve, reject).finally(() => signal.removeEventListener('abort', timedOut));
  });
}
