import { describe, expect, it } from 'vitest';
import { errorBody } from '../../http/error-answer';
import { failureAnswer, outcomeOfStatus, ProcessorFailure, resultOf } from './processor-outcome';

describe("a processor's answer (docs/api.md 6.1)", () => {
  it.each([
    [200, 'ok'],
    [201, 'ok'],
    [404, 'no card'],
    [400, 'refused'],
    [422, 'refused'],
    [401, 'credentials refused'],
    [403, 'credentials refused'],
    [429, 'rate limited'],
    [301, 'redirect'],
    [302, 'redirect'],
    [307, 'redirect'],
    [500, 'server error'],
    [503, 'server error'],
    [409, 'unexpected status'],
    [100, 'unexpected status'],
  ])('reads status %i as %s', (status, outcome) => {
    expect(outcomeOfStatus(status)).toBe(outcome);
  });

  const payloadOf = (body: unknown) => (body === 'payload' ? { data: body } : undefined);

  it('gives the payload of a 2xx that carries it', () => {
    expect(resultOf({ kind: 'answered', status: 200, body: 'payload' }, payloadOf)).toEqual({
      outcome: 'ok',
      payload: { data: 'payload' },
    });
  });

  it('calls a 2xx without the payload a failure', () => {
    expect(resultOf({ kind: 'answered', status: 200, body: undefined }, payloadOf)).toEqual({ outcome: 'no payload' });
  });

  it('reads no body of a failed status, and names timeouts and unreachable processors', () => {
    expect(resultOf({ kind: 'answered', status: 500, body: 'payload' }, payloadOf)).toEqual({ outcome: 'server error' });
    expect(resultOf({ kind: 'timeout' }, payloadOf)).toEqual({ outcome: 'timeout' });
    expect(resultOf({ kind: 'unreachable' }, payloadOf)).toEqual({ outcome: 'unreachable' });
  });

  const answerOf = (failure: ProcessorFailure) => {
    const error = failureAnswer(failure, 'apple');
    return { status: error.status, body: errorBody(error), retryAfter: error.retryAfterSeconds };
  };

  it('answers 404 no card when the processor does not know the card', () => {
    expect(answerOf('no card')).toEqual({ status: 404, body: { code: 'no card' }, retryAfter: undefined });
  });

  it("answers 400 bad request, naming the wallet's fields, when it refuses the request as invalid", () => {
    expect(answerOf('refused')).toEqual({
      status: 400,
      body: { code: 'bad request', message: ['certificates, nonce or nonceSignature: refused by the card processor'] },
      retryAfter: undefined,
    });
    expect(errorBody(failureAnswer('refused', 'google'))).toEqual({
      code: 'bad request',
      message: ['clientDeviceId or clientWalletAccountId: refused by the card processor'],
    });
  });

  it.each<ProcessorFailure>([
    'credentials refused',
    'rate limited',
    'redirect',
    'server error',
    'unexpected status',
    'no payload',
    'timeout',
    'unreachable',
  ])('answers %s 503 issuer unavailable with Retry-After', (failure) => {
    expect(answerOf(failure)).toEqual({ status: 503, body: { code: 'issuer unavailable' }, retryAfter: 5 });
  });
});
