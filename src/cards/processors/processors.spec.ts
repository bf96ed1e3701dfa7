import { describe, expect, it } from 'vitest';
import { lithic } from './lithic.processor';
import { marqeta } from './marqeta.processor';
import { ApplePushRequest, CardOnFile, GooglePushRequest, PROVISIONING_APP_VERSION } from './processor';
import { ISSUER_KINDS, isProcessorKind, PROCESSORS } from './processors';

// The adapters' mapping, both ways, from the processors' references (docs/decisions.md cites them).

const CARD: CardOnFile = {
  processorToken: 'tok/1',
  title: 'Everyday',
  cardholderName: 'Ann Lee',
  primaryAccountSuffix: '4242',
  network: 'visa',
};
const APPLE: ApplePushRequest = { certificates: ['TEVBRg==', 'U1VCQ0E='], nonce: 'bm9uY2U=', nonceSignature: 'c2ln', deviceType: 'watch' };
const GOOGLE: GooglePushRequest = { clientDeviceId: 'device-1', clientWalletAccountId: 'wallet-1' };
const APPLE_PAYLOAD = { activationData: 'YWN0', encryptedPassData: 'ZW5j', ephemeralPublicKey: 'ZXBr' };
const CARD_MEMBERS = { network: 'VISA', tokenServiceProvider: 'TOKEN_PROVIDER_VISA', displayName: 'Everyday', lastDigits: '4242' };

describe('the processor registry', () => {
  it("names every issuer kind: stored, then each processor's", () => {
    expect(ISSUER_KINDS).toEqual(['stored', 'marqeta', 'lithic']);
    expect(ISSUER_KINDS.filter(isProcessorKind)).toEqual(Object.keys(PROCESSORS));
  });

  it('knows no processor by an inherited name', () => {
    expect(['stored', 'toString', 'constructor'].filter(isProcessorKind)).toEqual([]);
  });
});

describe('Marqeta (Core API, /digitalwalletprovisionrequests)', () => {
  it('authenticates with HTTP Basic: the user name and password of the credentials file', () => {
    expect(marqeta.authorization({ username: 'app-token', password: 'p:w' })).toBe(
      `Basic ${Buffer.from('app-token:p:w').toString('base64')}`,
    );
  });

  it("asks /applepay with the card's token, the device type in Marqeta's words, the app version and Apple's data as sent", () => {
    expect(marqeta.apple.request(CARD, APPLE)).toEqual({
      path: '/digitalwalletprovisionrequests/applepay',
      body: {
        card_token: 'tok/1',
        device_type: 'WATCH',
        provisioning_app_version: PROVISIONING_APP_VERSION,
        certificates: ['TEVBRg==', 'U1VCQ0E='],
        nonce: 'bm9uY2U=',
        nonce_signature: 'c2ln',
      },
    });
    expect(PROVISIONING_APP_VERSION).toMatch(/^platform-api\/\d+\.\d+\.\d+$/);
  });

  it.each([
    ['phone', 'MOBILE_PHONE'],
    ['tablet', 'TABLET'],
  ] as const)('names a %s %s', (deviceType, named) => {
    expect(marqeta.apple.request(CARD, { ...APPLE, deviceType }).body).toMatchObject({ device_type: named });
  });

  it("reads Apple's payload from the snake_case answer", () => {
    const answer = {
      card_token: 'tok/1',
      activation_data: 'YWN0',
      encrypted_pass_data: 'ZW5j',
      ephemeral_public_key: 'ZXBr',
      created_time: 'x',
    };
    expect(marqeta.apple.payload(answer, CARD)).toEqual(APPLE_PAYLOAD);
  });

  it.each([
    ['no activation data', { encrypted_pass_data: 'ZW5j', ephemeral_public_key: 'ZXBr' }],
    ['an empty member', { activation_data: '', encrypted_pass_data: 'ZW5j', ephemeral_public_key: 'ZXBr' }],
    ['a member that is not a string', { activation_data: 1, encrypted_pass_data: 'ZW5j', ephemeral_public_key: 'ZXBr' }],
    ['an array', []],
    ['no JSON at all', undefined],
  ])('finds no Apple payload in an answer with %s', (_, answer) => {
    expect(marqeta.apple.payload(answer, CARD)).toBeUndefined();
  });

  it('asks /androidpay for a phone, with the device and wallet account ids', () => {
    expect(marqeta.google.request(CARD, GOOGLE)).toEqual({
      path: '/digitalwalletprovisionrequests/androidpay',
      body: {
        card_token: 'tok/1',
        device_id: 'device-1',
        device_type: 'MOBILE_PHONE',
        provisioning_app_version: PROVISIONING_APP_VERSION,
        wallet_account_id: 'wallet-1',
      },
    });
  });

  it('takes the opaque payment card, and what the answer does not carry from the card', () => {
    expect(marqeta.google.payload({ push_tokenize_request_data: { opaque_payment_card: 'b3Bj' } }, CARD)).toEqual({
      opaquePaymentCard: 'b3Bj',
      ...CARD_MEMBERS,
    });
  });

  it("takes what the answer carries in Google's words: the network in capitals, four last digits", () => {
    const data = {
      opaque_payment_card: 'b3Bj',
      network: 'Mastercard',
      token_service_provider: 'TOKEN_PROVIDER_MASTERCARD',
      display_name: 'Marqeta card',
      last_digits: '1234',
    };
    expect(marqeta.google.payload({ push_tokenize_request_data: data }, CARD)).toEqual({
      opaquePaymentCard: 'b3Bj',
      network: 'MASTERCARD',
      tokenServiceProvider: 'TOKEN_PROVIDER_MASTERCARD',
      displayName: 'Marqeta card',
      lastDigits: '1234',
    });
  });

  it("keeps the card's members where the answer's are not in Google's words", () => {
    const data = { opaque_payment_card: 'b3Bj', network: 'AMEX', token_service_provider: 'TSP', last_digits: '12' };
    expect(marqeta.google.payload({ push_tokenize_request_data: data }, CARD)).toEqual({ opaquePaymentCard: 'b3Bj', ...CARD_MEMBERS });
  });

  it('finds no Google payload without the opaque payment card', () => {
    expect(marqeta.google.payload({ push_tokenize_request_data: { display_name: 'x' } }, CARD)).toBeUndefined();
    expect(marqeta.google.payload({ opaque_payment_card: 'b3Bj' }, CARD)).toBeUndefined();
  });
});

describe('Lithic (/v1/cards/{card_token}/provision)', () => {
  it('authenticates with the API key alone', () => {
    expect(lithic.authorization({ apiKey: 'sk-123' })).toBe('sk-123');
  });

  it('asks for APPLE_PAY with the leaf certificate alone, the token escaped in the path', () => {
    expect(lithic.apple.request(CARD, APPLE)).toEqual({
      path: '/v1/cards/tok%2F1/provision',
      body: { digital_wallet: 'APPLE_PAY', certificate: 'TEVBRg==', nonce: 'bm9uY2U=', nonce_signature: 'c2ln' },
    });
  });

  it("reads Apple's payload from provisioning_payload, encryptedData as the pass data", () => {
    const answer = { provisioning_payload: { activationData: 'YWN0', encryptedData: 'ZW5j', ephemeralPublicKey: 'ZXBr' } };
    expect(lithic.apple.payload(answer, CARD)).toEqual(APPLE_PAYLOAD);
    expect(lithic.apple.payload({ provisioning_payload: 'b3Bj' }, CARD)).toBeUndefined();
  });

  it('asks for GOOGLE_PAY with the device and wallet account ids', () => {
    expect(lithic.google.request(CARD, GOOGLE)).toEqual({
      path: '/v1/cards/tok%2F1/provision',
      body: { digital_wallet: 'GOOGLE_PAY', client_device_id: 'device-1', client_wallet_account_id: 'wallet-1' },
    });
  });

  it('takes provisioning_payload as the opaque payment card, the rest from the card', () => {
    expect(lithic.google.payload({ provisioning_payload: 'b3Bj' }, { ...CARD, network: 'mastercard', title: 'Travel' })).toEqual({
      opaquePaymentCard: 'b3Bj',
      network: 'MASTERCARD',
      tokenServiceProvider: 'TOKEN_PROVIDER_MASTERCARD',
      displayName: 'Travel',
      lastDigits: '4242',
    });
    expect(lithic.google.payload({ provisioning_payload: { activationData: 'x' } }, CARD)).toBeUndefined();
  });
});
