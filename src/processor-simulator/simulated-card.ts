import { createHash } from 'node:crypto';
import { applePassData } from './apple-payload';
import type { SimulatedAnswer } from './request-rules';

/*
 * What the simulator answers for a card token, whatever the processor (docs/api.md 6.1): any token
 * gets a payload, except one starting `unknown-` (the processor's 404), `invalid-` (its refusal
 * of the request as invalid), `fail-` (its 500) or `slow-` (the payload, after 30 s). And the payloads themselves, deterministic but the Apple
 * crypto's fresh key.
 */

const SLOW_ANSWER_MS = 30_000;

/** The answer for `cardToken`: the processor's 404, its refusal (`invalidStatus`) or 500 in its own words (`failure`), or `status` with the payload. */
export function answerFor(
  cardToken: string,
  failure: (status: number, message: string) => SimulatedAnswer,
  { status, invalidStatus }: { status: number; invalidStatus: number },
  payload: () => object,
): SimulatedAnswer {
  if (cardToken.startsWith('unknown-')) return failure(404, 'card not found');
  if (cardToken.startsWith('invalid-')) return failure(invalidStatus, 'the request is not valid for this card');
  if (cardToken.startsWith('fail-')) return failure(500, 'an internal error');
  return { status, body: payload(), ...(cardToken.startsWith('slow-') && { delayMs: SLOW_ANSWER_MS }) };
}

/** Credentials the simulator refuses, as the processor refuses bad ones: a user name or API key starting `bad-`. */
export const refused = (credential: string): boolean => credential.startsWith('bad-');

const hex = (base64: string): string => Buffer.from(base64, 'base64').toString('hex');

/** Apple's three values: the activation data derived from the card token, the pass data opening to the request's nonce and signature, as hex. */
export function applePayloadFor(cardToken: string, leafCertificate: string, nonce: string, nonceSignature: string) {
  return {
    activationData: createHash('sha256').update(`activation:${cardToken}`).digest('base64'),
    ...applePassData(leafCertificate, { nonce: hex(nonce), nonceSignature: hex(nonceSignature) }),
  };
}

/** Google's opaque payment card: base64 of JSON naming what it was made for. */
export const opaquePaymentCardFor = (cardToken: string, deviceId: string | undefined, walletAccountId: string | undefined): string =>
  Buffer.from(JSON.stringify({ simulated: true, cardToken, deviceId, walletAccountId }), 'utf8').toString('base64');
