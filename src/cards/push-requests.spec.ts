import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../test/support/unit/domain-errors';
import { PUSH_REQUESTS } from './push-requests';

// docs/api.md 6.1: each rule of the wallets' bodies, 400 `bad request` naming the field.

const CERT = randomBytes(600).toString('base64');
const APPLE = { certificates: [CERT, CERT], nonce: randomBytes(16).toString('base64'), nonceSignature: randomBytes(64).toString('base64') };
const GOOGLE = { clientDeviceId: 'AbC-123_x', clientWalletAccountId: 'wallet.account!~' };
const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });

describe('the Apple body', () => {
  it('takes one to three certificates, a nonce and its signature, a phone by default', () => {
    expect(PUSH_REQUESTS.apple(APPLE)).toEqual({ ...APPLE, deviceType: 'phone' });
    expect(PUSH_REQUESTS.apple({ ...APPLE, certificates: [CERT] }).certificates).toEqual([CERT]);
    expect(PUSH_REQUESTS.apple({ ...APPLE, certificates: [CERT, CERT, CERT] }).certificates).toHaveLength(3);
  });

  it.each(['phone', 'watch', 'tablet'])('takes a deviceType %s', (deviceType) => {
    expect(PUSH_REQUESTS.apple({ ...APPLE, deviceType }).deviceType).toBe(deviceType);
  });

  it('takes a certificate of exactly 4 KiB of base64', () => {
    const exactly = 'A'.repeat(4096);
    expect(PUSH_REQUESTS.apple({ ...APPLE, certificates: [exactly] }).certificates).toEqual([exactly]);
  });

  it.each<[string, object, string]>([
    ['no certificates', { certificates: [] }, 'certificates: must be an array of 1 to 3 certificates, the leaf first'],
    [
      'four certificates',
      { certificates: [CERT, CERT, CERT, CERT] },
      'certificates: must be an array of 1 to 3 certificates, the leaf first',
    ],
    ['certificates that are not an array', { certificates: CERT }, 'certificates: must be an array of 1 to 3 certificates, the leaf first'],
    ['a certificate over 4 KiB', { certificates: [CERT, 'A'.repeat(4100)] }, 'certificates: item 2 is longer than 4096 characters'],
    ['a certificate that is not base64', { certificates: ['not base64!'] }, 'certificates: item 1 is not base64 (DER)'],
    ['a certificate in base64url', { certificates: ['ab-_'] }, 'certificates: item 1 is not base64 (DER)'],
    ['a certificate that is not a string', { certificates: [42] }, 'certificates: item 1 is not base64 (DER)'],
    ['a nonce that is not base64', { nonce: 'zz z' }, 'nonce: must be base64'],
    ['an empty nonce', { nonce: '' }, 'nonce: must be base64'],
    ['a nonce signature with broken padding', { nonceSignature: 'abc==' }, 'nonceSignature: must be base64'],
    ['a deviceType of tv', { deviceType: 'tv' }, 'deviceType: must be one of phone, watch, tablet'],
    ['an unknown member', { cardId: 1 }, 'cardId: unknown member'],
  ])('refuses %s, naming it', (_, change, message) => {
    expect(thrownBy(() => PUSH_REQUESTS.apple({ ...APPLE, ...change }))).toEqual(badRequest(message));
  });

  it.each(['certificates', 'nonce', 'nonceSignature'])('refuses a body without %s', (member) => {
    const body: Record<string, unknown> = { ...APPLE };
    delete body[member];
    expect(thrownBy(() => PUSH_REQUESTS.apple(body))).toEqual(badRequest(`${member}: is required`));
  });

  it('names every broken field, and refuses a body that is not an object', () => {
    expect(thrownBy(() => PUSH_REQUESTS.apple({ certificates: [], deviceType: 'tv' }))).toEqual(
      badRequest(
        'certificates: must be an array of 1 to 3 certificates, the leaf first',
        'nonce: is required',
        'nonceSignature: is required',
        'deviceType: must be one of phone, watch, tablet',
      ),
    );
    expect(thrownBy(() => PUSH_REQUESTS.apple([APPLE]))).toEqual(badRequest('body: must be a JSON object'));
  });
});

describe('the Google body', () => {
  it('takes the device and wallet account ids, 1 to 64 visible characters each', () => {
    expect(PUSH_REQUESTS.google(GOOGLE)).toEqual(GOOGLE);
    expect(PUSH_REQUESTS.google({ clientDeviceId: 'x'.repeat(64), clientWalletAccountId: '!' })).toEqual({
      clientDeviceId: 'x'.repeat(64),
      clientWalletAccountId: '!',
    });
  });

  it.each<[string, object, string]>([
    ['an id with a space', { clientDeviceId: 'a b' }, 'clientDeviceId: must be 1 to 64 visible ASCII characters, no space'],
    [
      'an id of 65 characters',
      { clientWalletAccountId: 'x'.repeat(65) },
      'clientWalletAccountId: must be 1 to 64 visible ASCII characters, no space',
    ],
    ['an empty id', { clientDeviceId: '' }, 'clientDeviceId: must be 1 to 64 visible ASCII characters, no space'],
    ['an id beyond ASCII', { clientDeviceId: 'café' }, 'clientDeviceId: must be 1 to 64 visible ASCII characters, no space'],
    ['an id that is not a string', { clientWalletAccountId: 7 }, 'clientWalletAccountId: must be a string'],
    ['an unknown member', { deviceType: 'phone' }, 'deviceType: unknown member'],
  ])('refuses %s, naming it', (_, change, message) => {
    expect(thrownBy(() => PUSH_REQUESTS.google({ ...GOOGLE, ...change }))).toEqual(badRequest(message));
  });

  it('refuses a body without its ids', () => {
    expect(thrownBy(() => PUSH_REQUESTS.google({}))).toEqual(
      badRequest('clientDeviceId: is required', 'clientWalletAccountId: is required'),
    );
  });
});
