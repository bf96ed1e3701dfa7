import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import type { AppConfig } from '../config/app-config';
import { SecretBox } from '../crypto/secret-box';
import type { Metrics } from '../metrics/metrics';
import { CardIssuers } from './card-issuers';
import { issuerCredentialsBinding, PushableCard } from './issuer.port';
import { PROVISIONING_APP_VERSION } from './processors/processor';
import type { ProcessorAnswer, ProcessorCall, ProcessorClient } from './processors/processor-client';

// The port's push (docs/api.md 6.1) around a fake processor client: what is sent, what is answered, what is counted and logged.

const secrets = new SecretBox({ secretKeys: { current: randomBytes(32), previous: [] } } as unknown as AppConfig);
const CREDENTIALS = { username: 'app-token', password: 'admin-secret' };

const cardOf = (issuerId = 5): PushableCard => ({
  cardId: 42,
  organizationId: 3,
  userId: 7,
  issuer: {
    id: 5,
    kind: 'marqeta',
    baseUrl: 'https://acme-api.marqeta.test/v3',
    credentials: secrets.seal(JSON.stringify(CREDENTIALS), issuerCredentialsBinding(issuerId)),
  },
  processorToken: 'card-tok',
  title: 'Everyday',
  cardholderName: 'Ann Lee',
  primaryAccountSuffix: '4242',
  network: 'mastercard',
});
const GOOGLE = { clientDeviceId: 'device-1', clientWalletAccountId: 'wallet-1' };

function issuersAnswering(answer: ProcessorAnswer) {
  const calls: ProcessorCall[] = [];
  const client = { post: vi.fn(async (call: ProcessorCall) => (calls.push(call), answer)) };
  const metrics = { processorCalled: vi.fn() };
  const logger = { warn: vi.fn(), error: vi.fn() };
  const issuers = new CardIssuers(secrets, client as unknown as ProcessorClient, metrics as unknown as Metrics, logger as never);
  return { issuers, calls, metrics, logger };
}

describe('CardIssuers.push', () => {
  it("posts the adapter's request below the issuer's base URL, with its credentials opened for the call", async () => {
    const { issuers, calls } = issuersAnswering({
      kind: 'answered',
      status: 200,
      body: { push_tokenize_request_data: { opaque_payment_card: 'b3Bj' } },
    });
    await issuers.push('google', cardOf(), GOOGLE);
    expect(calls.map(({ url, headers, body }) => ({ url: url.href, headers, body: JSON.parse(body) as unknown }))).toEqual([
      {
        url: 'https://acme-api.marqeta.test/v3/digitalwalletprovisionrequests/androidpay',
        headers: {
          authorization: `Basic ${Buffer.from('app-token:admin-secret').toString('base64')}`,
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': PROVISIONING_APP_VERSION,
        },
        body: {
          card_token: 'card-tok',
          device_id: 'device-1',
          device_type: 'MOBILE_PHONE',
          provisioning_app_version: PROVISIONING_APP_VERSION,
          wallet_account_id: 'wallet-1',
        },
      },
    ]);
  });

  it('answers the payload and counts the call by processor, wallet and outcome only', async () => {
    const { issuers, metrics, logger } = issuersAnswering({
      kind: 'answered',
      status: 200,
      body: { push_tokenize_request_data: { opaque_payment_card: 'b3Bj' } },
    });
    expect(await issuers.push('google', cardOf(), GOOGLE)).toEqual({
      opaquePaymentCard: 'b3Bj',
      network: 'MASTERCARD',
      tokenServiceProvider: 'TOKEN_PROVIDER_MASTERCARD',
      displayName: 'Everyday',
      lastDigits: '4242',
    });
    expect(metrics.processorCalled.mock.calls.map((call) => call.slice(0, 3))).toEqual([['marqeta', 'google', 'ok']]);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it("answers a failure as docs/api.md 6.1 says, counts it and logs its outcome and status, never the card's data", async () => {
    const { issuers, metrics, logger } = issuersAnswering({ kind: 'answered', status: 401, body: undefined });
    expect(await rejectionOf(issuers.push('google', cardOf(), GOOGLE))).toEqual({
      status: 503,
      body: { code: 'issuer unavailable' },
      retryAfter: 5,
    });
    expect(metrics.processorCalled.mock.calls.map((call) => call.slice(0, 3))).toEqual([['marqeta', 'google', 'credentials refused']]);
    expect(logger.warn.mock.calls[0][0]).toEqual({ processor: 'marqeta', wallet: 'google', outcome: 'credentials refused', status: 401 });
  });

  it('calls a 2xx without the payload 503 issuer unavailable', async () => {
    const { issuers } = issuersAnswering({ kind: 'answered', status: 200, body: { card_token: 'card-tok' } });
    expect((await rejectionOf(issuers.push('google', cardOf(), GOOGLE))).body).toEqual({ code: 'issuer unavailable' });
  });

  it("does not open another issuer's credentials: 503 issuer unavailable, counted and logged, and nobody called", async () => {
    const { issuers, calls, metrics, logger } = issuersAnswering({ kind: 'timeout' });
    expect((await rejectionOf(issuers.push('google', cardOf(6), GOOGLE))).body).toEqual({ code: 'issuer unavailable' });
    expect(calls).toEqual([]);
    expect(metrics.processorCalled.mock.calls.map((call) => call.slice(0, 3))).toEqual([['marqeta', 'google', 'credentials unreadable']]);
    expect(logger.error.mock.calls[0][0]).toEqual({ processor: 'marqeta', wallet: 'google', issuer: 5 });
  });

  it.each([
    ['text that is not JSON, never quoted in what is logged', 'admin-secret'],
    ['JSON that is not an object of strings', '{"username":1}'],
  ])('answers credentials that open to %s 503 issuer unavailable', async (_, text) => {
    const card = cardOf();
    const unreadable = { ...card, issuer: { ...card.issuer, credentials: secrets.seal(text, issuerCredentialsBinding(5)) } };
    const { issuers, calls, logger } = issuersAnswering({ kind: 'timeout' });
    expect((await rejectionOf(issuers.push('google', unreadable, GOOGLE))).status).toBe(503);
    expect(calls).toEqual([]);
    expect(JSON.stringify(logger.error.mock.calls)).not.toContain('admin-secret');
  });
});
