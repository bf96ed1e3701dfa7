import { describe, expect, it } from 'vitest';
import { type AttemptOutcome, classify } from './attempt-outcome';
import type { TokenFailure } from './receiver-auth/oauth-tokens';

const IN_TIME_MS = 500;
const answered = (status: number, durationMs = 100, retryAfterSeconds?: number): AttemptOutcome => ({
  kind: 'answered',
  status,
  durationMs,
  ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
});
const failed = (kind: Exclude<AttemptOutcome['kind'], 'answered' | 'auth failed'>): AttemptOutcome =>
  ({ kind, durationMs: 100 }) as AttemptOutcome;

describe('classify (docs/api.md 10.5, 10.7, 10.10)', () => {
  it('reads a 2xx within the time as a success that lets the limit grow, a slower one as a success that leaves it', () => {
    expect(classify(answered(204, 250), IN_TIME_MS)).toMatchObject({
      ok: true,
      status: 204,
      error: null,
      endpoint: 'success',
      limit: 'in time',
    });
    expect(classify(answered(200, 900), IN_TIME_MS)).toMatchObject({ ok: true, endpoint: 'success', limit: 'neutral' });
  });

  it.each([429, 500, 503])(
    'reads an answer %i as a failure the log names by its status, congestion, and a reachable receiver',
    (status) => {
      expect(classify(answered(status), IN_TIME_MS)).toMatchObject({
        ok: false,
        status,
        error: `http ${status}`,
        endpoint: 'reachable',
        limit: 'congestion',
        unanswered: false,
      });
    },
  );

  it.each([301, 404, 410])('reads an answer %i as a failure that leaves the limit, from a reachable receiver', (status) => {
    expect(classify(answered(status), IN_TIME_MS)).toMatchObject({ error: `http ${status}`, endpoint: 'reachable', limit: 'neutral' });
  });

  it("keeps a 429's or 503's Retry-After for the retry policy", () => {
    expect(classify(answered(503, 100, 120), IN_TIME_MS).retryAfterSeconds).toBe(120);
  });

  it.each(['timeout', 'connection failed'] as const)(
    'reads %s as unanswered: congestion, the breaker counts it, the slot waits for its verdict',
    (kind) => {
      expect(classify(failed(kind), IN_TIME_MS)).toMatchObject({
        ok: false,
        status: null,
        error: kind,
        endpoint: 'unreachable',
        limit: 'congestion',
        unanswered: true,
      });
    },
  );

  it.each(['dns unavailable', 'does not resolve'] as const)(
    'reads %s as an unreachable endpoint and congestion, its slot free at once',
    (kind) => {
      expect(classify(failed(kind), IN_TIME_MS)).toMatchObject({
        error: kind,
        endpoint: 'unreachable',
        limit: 'congestion',
        unanswered: false,
      });
    },
  );

  it('reads a TLS error as an answer of a reachable receiver that leaves the limit', () => {
    expect(classify(failed('tls error'), IN_TIME_MS)).toMatchObject({ error: 'tls error', endpoint: 'reachable', limit: 'neutral' });
  });

  it('reads a blocked address as untried: the breaker is left as it was', () => {
    expect(classify(failed('blocked address'), IN_TIME_MS)).toMatchObject({
      error: 'blocked address',
      endpoint: 'untried',
      limit: 'neutral',
    });
  });

  it('reads an attempt we could not make as internal error, ours: nothing of the endpoint', () => {
    expect(classify(failed('not made'), IN_TIME_MS)).toMatchObject({
      error: 'internal error',
      endpoint: 'ours',
      limit: 'neutral',
      unanswered: false,
    });
  });
});

describe('classify: a failed token request (docs/api.md 10.16)', () => {
  const authFailed = (failure: TokenFailure): AttemptOutcome => ({ kind: 'auth failed', failure, durationMs: 100 });

  it.each(['timeout', 'connection failed'] as const)(
    'reads a token request that got no answer (%s) as the attempt would: the breaker counts it, congestion, its slot waits',
    (reason) => {
      expect(classify(authFailed({ reason }), IN_TIME_MS)).toEqual({
        ok: false,
        status: null,
        error: 'auth failed',
        endpoint: 'unreachable',
        limit: 'congestion',
        unanswered: true,
        durationMs: 100,
      });
    },
  );

  it.each(['dns unavailable', 'does not resolve'] as const)('reads a token URL whose name fails (%s) as a resolver failure', (reason) => {
    expect(classify(authFailed({ reason }), IN_TIME_MS)).toMatchObject({
      error: 'auth failed',
      endpoint: 'unreachable',
      limit: 'congestion',
      unanswered: false,
    });
  });

  it.each([429, 500, 503])('reads a token endpoint answering %i as congestion, with its status', (status) => {
    expect(classify(authFailed({ reason: 'answered', status }), IN_TIME_MS)).toMatchObject({
      ok: false,
      status,
      error: 'auth failed',
      endpoint: 'reachable',
      limit: 'congestion',
      unanswered: false,
    });
  });

  it.each([
    ['a 2xx without a token', { reason: 'answered', status: 200 }, 200],
    ['a redirect', { reason: 'answered', status: 302 }, 302],
    ['a 400', { reason: 'answered', status: 400 }, 400],
    ['a 401', { reason: 'answered', status: 401 }, 401],
    ['a blocked address', { reason: 'blocked address' }, null],
    ['a TLS error', { reason: 'tls error' }, null],
  ] as const)('leaves the breaker and the limit as they were for %s: the receiver was not tried', (_, failure, status) => {
    expect(classify(authFailed(failure), IN_TIME_MS)).toMatchObject({
      ok: false,
      status,
      error: 'auth failed',
      endpoint: 'untried',
      limit: 'neutral',
      unanswered: false,
    });
  });
});
