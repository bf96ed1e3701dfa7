import { Injectable } from '@nestjs/common';
import type { OAuth2Settings } from '../../../webhooks/receiver-auth';
import { PinnedHttp, RequestFailure } from '../pinned-http';
import { AccessTokens, TokenResult } from './access-tokens';
import { accessTokenOf, tokenRequestOf } from './client-credentials';

/** docs/api.md 10.16: the token endpoint's answer is read at most this far. */
const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/**
 * Why a token request failed (docs/api.md 10.16): no answer, or an address refused, as an
 * attempt's request can; or the endpoint's `status`, not 2xx, or a 2xx without a token to use.
 */
export type TokenFailure = { readonly reason: RequestFailure } | { readonly reason: 'answered'; readonly status: number };

/**
 * The access tokens of an oauth2 webhook's attempts (docs/api.md 10.16): held per webhook by
 * this instance (AccessTokens: reuse, one request at a time, dropped on a 401), each asked for
 * through PinnedHttp like an attempt (the URL rules, every address vetted, the connection pinned,
 * the proxy; a redirect is an answer that fails), under the deadline of the attempt that asked.
 * The answer is read and dropped here: neither it nor the token is ever logged or stored.
 */
@Injectable()
export class OAuthTokens {
  private readonly tokens = new AccessTokens<TokenFailure>();

  constructor(private readonly http: PinnedHttp) {}

  /**
   * A token for an attempt of `webhookId` (its settings' `identity`: see AccessTokens), or why
   * there is none. An attempt that waits for another's request waits no longer than its own deadline.
   */
  tokenFor(webhookId: number, identity: string, settings: OAuth2Settings, signal: AbortSignal): Promise<TokenResult<TokenFailure>> {
    return withinDeadline(
      this.tokens.get(webhookId, identity, () => this.request(settings, signal)),
      signal,
    );
  }

  /** The receiver answered 401 to an attempt with `token`: the next attempt gets a new one. */
  refused(webhookId: number, identity: string, token: string): void {
    this.tokens.drop(webhookId, identity, token);
  }

  private async request(settings: OAuth2Settings, signal: AbortSignal): Promise<TokenResult<TokenFailure>> {
    const { headers, body } = tokenRequestOf(settings);
    const answer = await this.http.post({ url: settings.tokenUrl, headers, body, signal, readAtMost: MAX_TOKEN_ANSWER_BYTES });
    if (answer.kind !== 'answered') return { ok: false, failure: { reason: answer.kind } };
    const token = answer.status >= 200 && answer.status < 300 ? accessTokenOf(answer.body) : undefined;
    return token === undefined ? { ok: false, failure: { reason: 'answered', status: answer.status } } : { ok: true, token };
  }
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
