import type { IncomingHttpHeaders } from 'node:http';
import { base64, member, oneOf, optional, problemsOf, Rule, SimulatedAnswer, text } from './request-rules';
import { answerFor, applePayloadFor, opaquePaymentCardFor, refused } from './simulated-card';

/*
 * Lithic's API as the simulator plays it: `POST /v1/cards/{card_token}/provision`, the API key alone
 * as `Authorization` (any; one starting `bad-` is refused), `digital_wallet` choosing the wallet,
 * Apple's certificate, nonce and signature required for APPLE_PAY; a body it understands but
 * refuses answers 422, as Lithic's do.
 */

const WALLETS = ['APPLE_PAY', 'GOOGLE_PAY', 'SAMSUNG_PAY'];

const failure = (status: number, message: string): SimulatedAnswer => ({
  status,
  body: { debugging_request_id: '00000000-0000-0000-0000-000000000000', message: `processor simulator: ${message}` },
});

const RULES: Record<string, Readonly<Record<string, Rule>>> = {
  APPLE_PAY: { certificate: base64, nonce: base64, nonce_signature: base64 },
  GOOGLE_PAY: { client_device_id: optional(text(1, 256)), client_wallet_account_id: optional(text(1, 256)) },
  SAMSUNG_PAY: { client_device_id: optional(text(1, 256)), client_wallet_account_id: optional(text(1, 256)) },
};

export function lithicProvision(headers: IncomingHttpHeaders, body: unknown, cardToken: string): SimulatedAnswer {
  const apiKey = (headers.authorization ?? '').trim();
  if (apiKey === '') return failure(401, 'an API key is required');
  if (refused(apiKey)) return failure(401, 'the API key is not valid');
  const walletProblems = problemsOf(body, { digital_wallet: oneOf(WALLETS) });
  if (walletProblems.length > 0) return failure(422, walletProblems.join('; '));
  const wallet = member(body, 'digital_wallet');
  const problems = problemsOf(body, RULES[wallet]);
  if (problems.length > 0) return failure(422, problems.join('; '));
  return answerFor(cardToken, failure, { status: 200, invalidStatus: 422 }, () => ({
    provisioning_payload: payloadOf(wallet, cardToken, body),
  }));
}

/** Apple's object (Lithic names the pass data `encryptedData`), or Google's and Samsung's opaque payment card. */
function payloadOf(wallet: string, cardToken: string, body: unknown): object | string {
  if (wallet !== 'APPLE_PAY')
    return opaquePaymentCardFor(cardToken, member(body, 'client_device_id'), member(body, 'client_wallet_account_id'));
  const { activationData, encryptedPassData, ephemeralPublicKey } = applePayloadFor(
    cardToken,
    member(body, 'certificate'),
    member(body, 'nonce'),
    member(body, 'nonce_signature'),
  );
  return { activationData, encryptedData: encryptedPassData, ephemeralPublicKey };
}
