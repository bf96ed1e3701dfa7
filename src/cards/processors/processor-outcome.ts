import { DomainError, Errors } from '../../common/domain-error';
import type { Wallet } from './processor';
import type { ProcessorAnswer } from './processor-client';

/**
 * What became of one call to a processor (docs/api.md 6.1), read alike for every processor: the
 * values of its metric's `outcome` label, and of the warning a failure logs.
 */
export type ProcessorOutcome =
  | 'ok'
  | 'no card'
  | 'refused'
  | 'credentials refused'
  | 'credentials unreadable'
  | 'rate limited'
  | 'redirect'
  | 'server error'
  | 'unexpected status'
  | 'no payload'
  | 'timeout'
  | 'unreachable';

export type ProcessorFailure = Exclude<ProcessorOutcome, 'ok'>;

/** What an answer's status says; a 2xx is `ok` until its body is found to carry the payload or not. */
export function outcomeOfStatus(status: number): ProcessorOutcome {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 404) return 'no card';
  if (status === 400 || status === 422) return 'refused';
  if (status === 401 || status === 403) return 'credentials refused';
  if (status === 429) return 'rate limited';
  if (status >= 300 && status < 400) return 'redirect';
  if (status >= 500) return 'server error';
  return 'unexpected status';
}

/** The members a processor judges when it refuses a wallet's request as invalid (the processor's own words are never passed on). */
const REFUSED: Record<Wallet, string> = {
  apple: 'certificates, nonce or nonceSignature: refused by the card processor',
  google: 'clientDeviceId or clientWalletAccountId: refused by the card processor',
};

/**
 * The wallet extension's answer to a failed call: the processor does not know the card, 404 `no
 * card`; it refuses the request as invalid, 400 `bad request`; anything else (unreachable, slower
 * than ISSUER_TIMEOUT_MS, 5xx, our credentials refused, 429, a redirect, a 2xx without the
 * payload, our stored credentials unreadable), 503 `issuer unavailable` with Retry-After.
 */
export function failureAnswer(failure: ProcessorFailure, wallet: Wallet): DomainError {
  if (failure === 'no card') return Errors.noCard();
  if (failure === 'refused') return Errors.badRequest([REFUSED[wallet]]);
  return Errors.issuerUnavailable();
}

/** One call's result: the payload of a 2xx that carries it, or what went wrong. */
export type CallResult<P> = { readonly outcome: 'ok'; readonly payload: P } | { readonly outcome: ProcessorFailure };

/** Reads a processor's answer with `payloadOf`, the adapter's reading of a 2xx body. */
export function resultOf<P>(answer: ProcessorAnswer, payloadOf: (body: unknown) => P | undefined): CallResult<P> {
  if (answer.kind !== 'answered') return { outcome: answer.kind };
  const outcome = outcomeOfStatus(answer.status);
  if (outcome !== 'ok') return { outcome };
  const payload = payloadOf(answer.body);
  return payload === undefined ? { outcome: 'no payload' } : { outcome: 'ok', payload };
}
