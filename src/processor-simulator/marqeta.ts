import type { IncomingHttpHeaders } from 'node:http';
import { base64, base64List, member, oneOf, problemsOf, SimulatedAnswer, text } from './request-rules';
import { answerFor, applePayloadFor, opaquePaymentCardFor, refused } from './simulated-card';

/*
 * Marqeta's Core API as the simulator plays it: `POST /digitalwalletprovisionrequests/applepay` and
 * `/androidpay`, HTTP Basic (any user name and password; a user name starting `bad-` is refused),
 * the request bodies checked as the reference defines them, the answers shaped as it does. Marqeta
 * returns display data of the cards it holds; the simulator holds none, so its Google answer
 * carries the opaque payment card alone.
 */

const DEVICE_TYPES = ['MOBILE_PHONE', 'WATCH', 'TABLET'];

const failure = (status: number, message: string): SimulatedAnswer => ({
  status,
  body: { error_code: String(status), error_message: `processor simulator: ${message}` },
});

/** A refusal of the credentials, or undefined when they are HTTP Basic with a user name and a password the simulator takes. */
function unauthenticated(headers: IncomingHttpHeaders): SimulatedAnswer | undefined {
  const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(headers.authorization ?? '');
  const decoded = match === null ? '' : Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) return failure(401, 'HTTP Basic credentials are required');
  return refused(decoded.slice(0, colon)) ? failure(401, 'the credentials are not valid') : undefined;
}

/** Checks the credentials, the body, then the card, and answers the card's payload. */
function provision(
  headers: IncomingHttpHeaders,
  body: unknown,
  rules: Parameters<typeof problemsOf>[1],
  payload: () => object,
): SimulatedAnswer {
  const refusal = unauthenticated(headers);
  if (refusal !== undefined) return refusal;
  const problems = problemsOf(body, rules);
  if (problems.length > 0) return failure(400, problems.join('; '));
  const cardToken = member(body, 'card_token');
  const now = new Date().toISOString();
  return answerFor(cardToken, failure, { status: 201, invalidStatus: 400 }, () => ({
    created_time: now,
    last_modified_time: now,
    card_token: cardToken,
    ...payload(),
  }));
}

export function marqetaApplePay(headers: IncomingHttpHeaders, body: unknown): SimulatedAnswer {
  const rules = {
    card_token: text(1, 36),
    device_type: oneOf(DEVICE_TYPES),
    provisioning_app_version: text(1, 50),
    certificates: base64List,
    nonce: base64,
    nonce_signature: base64,
  };
  return provision(headers, body, rules, () => {
    const { activationData, encryptedPassData, ephemeralPublicKey } = applePayloadFor(
      member(body, 'card_token'),
      (body as { certificates: string[] }).certificates[0],
      member(body, 'nonce'),
      member(body, 'nonce_signature'),
    );
    return { activation_data: activationData, encrypted_pass_data: encryptedPassData, ephemeral_public_key: ephemeralPublicKey };
  });
}

export function marqetaAndroidPay(headers: IncomingHttpHeaders, body: unknown): SimulatedAnswer {
  const rules = {
    card_token: text(1, 36),
    // Marqeta's reference caps these at 24 and 50; the simulator takes the whole range the
    // contract lets a wallet send (docs/api.md 6.1: 1-64), so that every valid request has an
    // answer here (docs/decisions.md). A real Marqeta's 400 past its caps is our 400.
    device_id: text(1, 64),
    device_type: oneOf(DEVICE_TYPES),
    provisioning_app_version: text(1, 50),
    wallet_account_id: text(1, 64),
  };
  return provision(headers, body, rules, () => ({
    push_tokenize_request_data: {
      opaque_payment_card: opaquePaymentCardFor(member(body, 'card_token'), member(body, 'device_id'), member(body, 'wallet_account_id')),
    },
  }));
}
