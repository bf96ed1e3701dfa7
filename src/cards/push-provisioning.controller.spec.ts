import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, type Mocked, vi } from 'vitest';
import { ControllerContext, controllerSetup, WALLET } from '../../test/support/unit/controller-setup';
import { Errors } from '../common/domain-error';
import type { PushableCard } from './issuer.port';
import { PushProvisioningController } from './push-provisioning.controller';
import { PushProvisioningService } from './push-provisioning.service';

/*
 * The order of checks of a wallet push (docs/api.md 6.1): the bearer token (401), the user's limit
 * (429), the card (404 `no card`, an id that is no card's included), its issuer (403 `no issuer`),
 * the body (400 `bad request` naming the field), then the processor; through the real guards and
 * pipe with the service mocked. What each check answers, and what never reaches the next one.
 */

const CARD: PushableCard = {
  cardId: 42,
  organizationId: 3,
  userId: WALLET.userId,
  issuer: { id: 5, kind: 'lithic', baseUrl: 'https://api.lithic.test', credentials: { ciphertext: 'c', keyId: 'k' } },
  processorToken: 'tok',
  title: 'Everyday',
  cardholderName: 'Ann Lee',
  primaryAccountSuffix: '4242',
  network: 'visa',
};
const APPLE = { certificates: [randomBytes(300).toString('base64')], nonce: 'bm9uY2U=', nonceSignature: 'c2lnbmF0dXJl' };
const GOOGLE = { clientDeviceId: 'device-1', clientWalletAccountId: 'wallet-1' };
const APPLE_PAYLOAD = { activationData: 'YQ==', encryptedPassData: 'ZQ==', ephemeralPublicKey: 'aw==' };

describe('PushProvisioningController', () => {
  let app: ControllerContext;
  let provisioning: Mocked<PushProvisioningService>;
  beforeAll(async () => {
    app = await controllerSetup([PushProvisioningController]);
    provisioning = app.get(PushProvisioningService);
  });
  afterAll(() => app.close());
  beforeEach(() => {
    vi.resetAllMocks();
    provisioning.cardToPush.mockResolvedValue(CARD);
    provisioning.push.mockResolvedValue(APPLE_PAYLOAD);
  });

  const post = async (path: string, body: unknown) => {
    const { status, body: answer } = await app
      .http()
      .post(path)
      .send(body as object);
    return { status, body: answer as unknown };
  };

  it('answers 401 before counting, looking the card up or reading the body', async () => {
    app.authenticator.walletExtension.mockRejectedValueOnce(Errors.unauthorized());
    expect(await post('/card/abc/provisioning/apple', { deviceType: 'tv' })).toEqual({ status: 401, body: { code: 'unauthorized' } });
    expect(app.limits.countPush).not.toHaveBeenCalled();
    expect(provisioning.cardToPush).not.toHaveBeenCalled();
  });

  it("counts the request against the caller's user, then answers 429 before the card and the body", async () => {
    app.limits.countPush.mockRejectedValueOnce(Errors.rateLimited(42));
    const answer = await app.http().post('/card/abc/provisioning/google').send({});
    expect({ status: answer.status, body: answer.body as unknown, retryAfter: answer.headers['retry-after'] }).toEqual({
      status: 429,
      body: { code: 'rate limited' },
      retryAfter: '42',
    });
    expect(app.limits.countPush).toHaveBeenCalledWith(WALLET.userId);
    expect(provisioning.cardToPush).not.toHaveBeenCalled();
  });

  it.each(['abc', '-1', '0', '01', '1.5', '1e3', '9007199254740993', '99999999999999999999', '%20'])(
    'answers 404 no card to the id %s without a lookup, before the body',
    async (id) => {
      expect(await post(`/card/${id}/provisioning/apple`, { deviceType: 'tv' })).toEqual({ status: 404, body: { code: 'no card' } });
      expect(provisioning.cardToPush).not.toHaveBeenCalled();
      expect(app.limits.countPush).toHaveBeenCalledTimes(1);
    },
  );

  it("looks up the caller's card by its id, and answers its 404 before the body", async () => {
    provisioning.cardToPush.mockRejectedValueOnce(Errors.noCard());
    expect(await post('/card/42/provisioning/apple', { deviceType: 'tv' })).toEqual({ status: 404, body: { code: 'no card' } });
    expect(provisioning.cardToPush).toHaveBeenCalledWith(WALLET.userId, 42);
    expect(provisioning.push).not.toHaveBeenCalled();
  });

  it('answers 403 no issuer before the body', async () => {
    provisioning.cardToPush.mockRejectedValueOnce(Errors.noIssuer());
    expect(await post('/card/42/provisioning/google', { clientDeviceId: 'a b' })).toEqual({ status: 403, body: { code: 'no issuer' } });
    expect(provisioning.push).not.toHaveBeenCalled();
  });

  it('answers 400 bad request naming the field, without calling the processor', async () => {
    expect(await post('/card/42/provisioning/apple', { ...APPLE, deviceType: 'tv' })).toEqual({
      status: 400,
      body: { code: 'bad request', message: ['deviceType: must be one of phone, watch, tablet'] },
    });
    expect(await post('/card/42/provisioning/google', { ...GOOGLE, extra: 1 })).toEqual({
      status: 400,
      body: { code: 'bad request', message: ['extra: unknown member'] },
    });
    expect(provisioning.push).not.toHaveBeenCalled();
  });

  it("hands the card and Apple's request to the service and answers 200 with its payload", async () => {
    expect(await post('/card/42/provisioning/apple', APPLE)).toEqual({ status: 200, body: APPLE_PAYLOAD });
    expect(provisioning.push).toHaveBeenCalledWith('apple', CARD, { ...APPLE, deviceType: 'phone' });
  });

  it("hands the card and Google's request to the service", async () => {
    await post('/card/42/provisioning/google', GOOGLE);
    expect(provisioning.push).toHaveBeenCalledWith('google', CARD, GOOGLE);
  });

  it("answers what the processor's failure answers", async () => {
    provisioning.push.mockRejectedValueOnce(Errors.issuerUnavailable());
    const answer = await app.http().post('/card/42/provisioning/apple').send(APPLE);
    expect({ status: answer.status, body: answer.body as unknown, retryAfter: answer.headers['retry-after'] }).toEqual({
      status: 503,
      body: { code: 'issuer unavailable' },
      retryAfter: '5',
    });
  });

  it("lists the caller's entries, counting nothing against the push limit", async () => {
    provisioning.entries.mockResolvedValueOnce({ data: [] });
    const answer = await app.http().get('/card/provisioning/entries');
    expect({ status: answer.status, body: answer.body as unknown }).toEqual({ status: 200, body: { data: [] } });
    expect(provisioning.entries).toHaveBeenCalledWith(WALLET.userId);
    expect(app.limits.countPush).not.toHaveBeenCalled();
  });
});
