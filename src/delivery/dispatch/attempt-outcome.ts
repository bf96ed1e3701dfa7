import type { AttemptError } from '../delivery.model';
import type { TokenFailure } from './receiver-auth/oauth-tokens';
import type { LimitSignal } from './scheduling/adaptive-limit';
import type { EndpointSignal } from './scheduling/endpoint-health';

/**
 * What one attempt came to (docs/api.md 10.5), one case for each way it can end: the sender's
 * answer, or the runner's when it could not make the attempt at all. Read only through
 * `classify`, so that what the breaker, the adaptive limit, the retry policy, the log and the
 * metrics make of a case is decided in one place, and a new case cannot compile until it is.
 */
export type AttemptOutcome =
  /** The receiver answered with `status` (a 2xx succeeds). */
  | { readonly kind: 'answered'; readonly status: number; readonly durationMs: number; readonly retryAfterSeconds?: number }
  /** Nobody answered: no answer within DELIVERY_TIMEOUT_MS, or the connection failed. */
  | { readonly kind: 'timeout' | 'connection failed'; readonly durationMs: number }
  /** The TLS handshake failed: something answered at the address, with a certificate the attempt refused. */
  | { readonly kind: 'tls error'; readonly durationMs: number }
  /** The name server failed, or the name has no address. */
  | { readonly kind: 'dns unavailable' | 'does not resolve'; readonly durationMs: number }
  /** An address docs/api.md 10.4 refuses: nothing was tried. */
  | { readonly kind: 'blocked address'; readonly durationMs: number }
  /** An oauth2 webhook's token request failed (docs/api.md 10.16): nothing was sent to the receiver. */
  | { readonly kind: 'auth failed'; readonly failure: TokenFailure; readonly durationMs: number }
  /** Ours: the secret or the body no longer opens (docs/api.md 10.10). */
  | { readonly kind: 'not made'; readonly durationMs: number };

/** An attempt as everything after it reads it. */
export interface ClassifiedOutcome {
  readonly ok: boolean;
  /** The receiver's HTTP status, when it answered (auth failed: the token endpoint's). */
  readonly status: number | null;
  /** The delivery log's name for the failure (docs/api.md 10.7); null for a success. */
  readonly error: AttemptError | null;
  /** What it tells the endpoint's breaker and failure run (docs/api.md 10.10). */
  readonly endpoint: EndpointSignal;
  /** What it tells the webhook's limit of attempts in flight. */
  readonly limit: LimitSignal;
  /** Nobody answered: the webhook's slot waits for the breaker's verdict on it. */
  readonly unanswered: boolean;
  readonly durationMs: number;
  /** A 429's or 503's Retry-After, in seconds: it may lengthen the wait for the next attempt. */
  readonly retryAfterSeconds?: number;
}

/**
 * The one reading of an outcome. A 2xx within `inTimeMs` lets the webhook's limit grow (a slower
 * one leaves it); a timeout, a failed connection, a resolver failure, a 429 or a 5xx lowers it,
 * as congestion. The breaker counts what never reached an answer (timeouts, failed connections,
 * resolver failures: a name server that stopped answering is as unreachable as the receiver);
 * any answer, a TLS handshake's included, shows the receiver reachable; a blocked address was
 * never tried; an attempt we could not make says nothing of the endpoint; a failed token request
 * counts as the attempt would that failed the same way, or not at all (authFailed).
 */
export function classify(outcome: AttemptOutcome, inTimeMs: number): ClassifiedOutcome {
  const { durationMs } = outcome;
  switch (outcome.kind) {
    case 'answered': {
      const { status, retryAfterSeconds } = outcome;
      if (status >= 200 && status < 300) {
        return {
          ok: true,
          status,
          error: null,
          endpoint: 'success',
          limit: durationMs <= inTimeMs ? 'in time' : 'neutral',
          unanswered: false,
          durationMs,
        };
      }
      const congestion = status === 429 || status >= 500;
      return {
        ok: false,
        status,
        error: `http ${status}`,
        endpoint: 'reachable',
        limit: congestion ? 'congestion' : 'neutral',
        unanswered: false,
        durationMs,
        ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
      };
    }
    case 'timeout':
    case 'connection failed':
      return failed(outcome.kind, 'unreachable', 'congestion', true, durationMs);
    case 'dns unavailable':
    case 'does not resolve':
      return failed(outcome.kind, 'unreachable', 'congestion', false, durationMs);
    case 'tls error':
      return failed('tls error', 'reachable', 'neutral', false, durationMs);
    case 'blocked address':
      return failed('blocked address', 'untried', 'neutral', false, durationMs);
    case 'auth failed':
      return authFailed(outcome.failure, durationMs, inTimeMs);
    case 'not made':
      return failed('internal error', 'ours', 'neutral', false, durationMs);
  }
}

/** What the breaker and the limit count of a token request's failures: those that count for an attempt's. */
const COUNTED: ReadonlySet<string> = new Set(['timeout', 'connection failed', 'dns unavailable', 'does not resolve']);

/**
 * docs/api.md 10.16: a failed token request counts for the breaker and the limit as an attempt
 * that failed the same way would (no answer, a resolver failure, a 429 or a 5xx: read as that
 * attempt is); any other failure (an address refused, a TLS error, a redirect, another status, a
 * 2xx without a token) leaves them as they were: the receiver was not tried. The status is the
 * token endpoint's.
 */
function authFailed(failure: TokenFailure, durationMs: number, inTimeMs: number): ClassifiedOutcome {
  const answered = failure.reason === 'answered';
  const counts = answered ? failure.status === 429 || failure.status >= 500 : COUNTED.has(failure.reason);
  const same = classify(
    answered ? { kind: 'answered', status: failure.status, durationMs } : { kind: failure.reason, durationMs },
    inTimeMs,
  );
  return {
    ...failed('auth failed', counts ? same.endpoint : 'untried', counts ? same.limit : 'neutral', counts && same.unanswered, durationMs),
    status: answered ? failure.status : null,
  };
}

function failed(
  error: AttemptError,
  endpoint: EndpointSignal,
  limit: LimitSignal,
  unanswered: boolean,
  durationMs: number,
): ClassifiedOutcome {
  return { ok: false, status: null, error, endpoint, limit, unanswered, durationMs };
}

/** A 429's or 503's `Retry-After` in whole seconds, as an answer gave it (undefined: none, or a date, which is not followed). */
export function retryAfterOf(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
