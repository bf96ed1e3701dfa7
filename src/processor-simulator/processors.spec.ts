import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { openApplePayload, WALLET_CERTIFICATES } from '../../test/support/apple-wallet';
import { lithicProvision } from './lithic';
import { marqetaAndroidPay, marqetaApplePay } from './marqeta';

// The simulated processors (docs/api.md 6.1): each request checked as the reference defines it, deterministic answers by card token.

const BASIC = { authorization: `Basic ${Buffer.from('app-token:admin-token').toString('base64')}` };
const NONCE = randomBytes(16).toString('base64');
const SIGNATURE = randomBytes(64).toString('base64');
const hex = (base64: string) => Buffer.from(base64, 'base64').toString('hex');

const MARQETA_APPLE = {
  card_token: 'card-1',
  device_type: 'MOBILE_PHONE',
  provisioning_app_version: 'platform-api/1.0.0',
  certificates: [...WALLET_CERTIFICATES],
  nonce: NONCE,
  nonce_signature: SIGNATURE,
};
const MARQETA_GOOGLE = {
  card_token: 'card-1',
  device_id: 'device-1',
  device_type: 'MOBILE_PHONE',
  provisioning_app_version: 'platform-api/1.0.0',
  wallet_account_id: 'wallet-1',
};
const LITHIC_APPLE = { digital_wallet: 'APPLE_PAY', certificate: WALLET_CERTIFICATES[0], nonce: NONCE, nonce_signature: SIGNATURE };

describe('the simulated Marqeta', () => {
  it("answers Apple's payload, opening to the request's nonce and signature as hex", () => {
    const { status, body } = marqetaApplePay(BASIC, MARQETA_APPLE);
    const answer = body as Record<string, string>;
    expect([status, answer.card_token, typeof answer.activation_data]).toEqual([201, 'card-1', 'string']);
    expect(openApplePayload({ encryptedPassData: answer.encrypted_pass_data, ephemeralPublicKey: answer.ephemeral_public_key })).toEqual({
      nonce: hex(NONCE),
      nonceSignature: hex(SIGNATURE),
    });
  });

  it("answers Google's opaque payment card", () => {
    const { status, body } = marqetaAndroidPay(BASIC, MARQETA_GOOGLE);
    expect(status).toBe(201);
    expect(body).toMatchObject({ card_token: 'card-1', push_tokenize_request_data: { opaque_payment_card: expect.any(String) } });
  });

  it.each([
    ['no Authorization', {}],
    ['another scheme', { authorization: 'Bearer app-token' }],
    ['a user name without a password', { authorization: `Basic ${Buffer.from('app-token:').toString('base64')}` }],
    ['a user name starting bad-', { authorization: `Basic ${Buffer.from('bad-app:pw').toString('base64')}` }],
  ])('answers 401 to %s', (_, headers) => {
    expect(marqetaAndroidPay(headers, MARQETA_GOOGLE).status).toBe(401);
  });

  it.each<[string, object]>([
    ['no certificates', { certificates: [] }],
    ['a certificate that is not base64', { certificates: ['*'] }],
    ['a device type of TV', { device_type: 'TV' }],
    ['a nonce that is not base64', { nonce: 'x y' }],
    ['no app version', { provisioning_app_version: undefined }],
    ['a card token of 37 characters', { card_token: 'x'.repeat(37) }],
  ])('answers 400 to an Apple request with %s', (_, change) => {
    const { status, body } = marqetaApplePay(BASIC, { ...MARQETA_APPLE, ...change });
    expect([status, (body as { error_code: string }).error_code]).toEqual([400, '400']);
  });

  it("takes a Google device id and wallet account id of the contract's 64 characters, and refuses 65", () => {
    expect(marqetaAndroidPay(BASIC, { ...MARQETA_GOOGLE, device_id: 'd'.repeat(64), wallet_account_id: 'w'.repeat(64) }).status).toBe(201);
    expect(marqetaAndroidPay(BASIC, { ...MARQETA_GOOGLE, device_id: 'd'.repeat(65) }).status).toBe(400);
  });

  it('answers by the card token: unknown- 404, fail- 500, slow- the payload after 30 s', () => {
    expect(marqetaAndroidPay(BASIC, { ...MARQETA_GOOGLE, card_token: 'unknown-1' }).status).toBe(404);
    expect(marqetaAndroidPay(BASIC, { ...MARQETA_GOOGLE, card_token: 'fail-1' }).status).toBe(500);
    expect(marqetaAndroidPay(BASIC, { ...MARQETA_GOOGLE, card_token: 'slow-1' })).toMatchObject({ status: 201, delayMs: 30_000 });
  });
});

describe('the simulated Lithic', () => {
  it("answers Apple's payload as provisioning_payload, the pass data as encryptedData", () => {
    const { status, body } = lithicProvision({ authorization: 'api-key' }, LITHIC_APPLE, 'card-1');
    const payload = (body as { provisioning_payload: Record<string, string> }).provisioning_payload;
    expect([status, typeof payload.activationData]).toEqual([200, 'string']);
    expect(openApplePayload({ encryptedPassData: payload.encryptedData, ephemeralPublicKey: payload.ephemeralPublicKey })).toEqual({
      nonce: hex(NONCE),
      nonceSignature: hex(SIGNATURE),
    });
  });

  it("answers Google's opaque payment card as provisioning_payload, base64", () => {
    const { body } = lithicProvision({ authorization: 'api-key' }, { digital_wallet: 'GOOGLE_PAY', client_device_id: 'd' }, 'card-1');
    const payload = (body as { provisioning_payload: string }).provisioning_payload;
    expect(JSON.parse(Buffer.from(payload, 'base64').toString('utf8'))).toMatchObject({ cardToken: 'card-1', deviceId: 'd' });
  });

  it('answers 401 without an API key, or to one starting bad-', () => {
    expect(lithicProvision({}, LITHIC_APPLE, 'card-1').status).toBe(401);
    expect(lithicProvision({ authorization: 'bad-key' }, LITHIC_APPLE, 'card-1').status).toBe(401);
  });

  it.each<[string, object]>([
    ['no digital wallet', { digital_wallet: undefined }],
    ['a wallet Lithic does not know', { digital_wallet: 'PAYPAL' }],
    ['no certificate for APPLE_PAY', { certificate: undefined }],
    ['a nonce signature that is not base64', { nonce_signature: '%%' }],
  ])('answers 422 to %s', (_, change) => {
    expect(lithicProvision({ authorization: 'api-key' }, { ...LITHIC_APPLE, ...change }, 'card-1').status).toBe(422);
  });

  it('answers by the card token: unknown- 404, fail- 500, slow- the payload after 30 s', () => {
    expect(lithicProvision({ authorization: 'k' }, LITHIC_APPLE, 'unknown-1').status).toBe(404);
    expect(lithicProvision({ authorization: 'k' }, LITHIC_APPLE, 'fail-1').status).toBe(500);
    expect(lithicProvision({ authorization: 'k' }, LITHIC_APPLE, 'slow-1')).toMatchObject({ status: 200, delayMs: 30_000 });
  });
});
