import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LEAF_PRIVATE_KEY, openApplePayload, WALLET_CERTIFICATES } from '../../test/support/apple-wallet';
import { applePassData, passDataKey } from './apple-payload';

// docs/api.md 6.1: the simulator's Apple payload is real cryptography, which the wallet's side
// (test/support/apple-wallet.ts, written from the contract alone) opens with the leaf's private key.

const [LEAF] = WALLET_CERTIFICATES;

describe('passDataKey: the NIST SP 800-56A concatenation KDF of Apple Pay', () => {
  it('hashes the counter 00000001, the shared secret and the other info 0x0D || "id-aes256-GCM" || "Apple", once', () => {
    const secret = Buffer.alloc(32, 0xab);
    const expected = createHash('sha256')
      .update(Buffer.from('00000001', 'hex'))
      .update(secret)
      .update(Buffer.from(`0d${Buffer.from('id-aes256-GCMApple').toString('hex')}`, 'hex'))
      .digest();
    expect(passDataKey(secret)).toEqual(expected);
    expect(passDataKey(secret)).toHaveLength(32);
  });
});

describe('applePassData', () => {
  it('opens with the leaf certificate’s private key to the plaintext it was given', () => {
    const plaintext = { nonce: randomBytes(16).toString('hex'), nonceSignature: randomBytes(64).toString('hex') };
    expect(openApplePayload(applePassData(LEAF, plaintext), LEAF_PRIVATE_KEY)).toEqual(plaintext);
  });

  it('gives an uncompressed P-256 point as the ephemeral key, a fresh one each time, and the tag after the ciphertext', () => {
    const first = applePassData(LEAF, { nonce: 'aa' });
    const second = applePassData(LEAF, { nonce: 'aa' });
    const point = Buffer.from(first.ephemeralPublicKey, 'base64');
    expect([point.length, point[0]]).toEqual([65, 0x04]);
    expect(second.ephemeralPublicKey).not.toBe(first.ephemeralPublicKey);
    expect(Buffer.from(first.encryptedPassData, 'base64')).toHaveLength(JSON.stringify({ nonce: 'aa' }).length + 16);
  });

  it('seals a leaf that is no P-256 certificate to a throwaway key: well formed, and the leaf’s key does not open it', () => {
    const sealed = applePassData(randomBytes(300).toString('base64'), { nonce: 'aa' });
    expect(Buffer.from(sealed.ephemeralPublicKey, 'base64')).toHaveLength(65);
    expect(() => openApplePayload(sealed, LEAF_PRIVATE_KEY)).toThrow();
  });
});
