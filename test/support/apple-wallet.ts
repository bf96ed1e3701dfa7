import { createDecipheriv, createHash, createPrivateKey, diffieHellman, KeyObject, X509Certificate, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/*
 * The wallet's side of Apple push provisioning, for the tests: a certificate chain standing in for
 * Apple's (a P-256 leaf and the sub-CA that signed it, test/support/apple-wallet/), the leaf's
 * private key, and the opening of an `encryptedPassData` written from docs/api.md 6.1 alone, not
 * from the simulator's code: ECDH of the leaf's key and the ephemeral public key, the NIST SP
 * 800-56A concatenation KDF (SHA-256, counter 00000001, other info 0x0D || "id-aes256-GCM" ||
 * "Apple"), AES-256-GCM with 16 zero bytes of IV and the tag appended.
 */

const DIR = join(__dirname, 'apple-wallet');
const derOf = (file: string): string => new X509Certificate(readFileSync(join(DIR, file))).raw.toString('base64');

/** The chain a wallet extension receives, DER in base64, the leaf first. */
export const WALLET_CERTIFICATES: readonly string[] = [derOf('leaf.pem'), derOf('sub-ca.pem')];
export const LEAF_PRIVATE_KEY: KeyObject = createPrivateKey(readFileSync(join(DIR, 'leaf.key')));

const OTHER_INFO = Buffer.concat([Buffer.from([0x0d]), Buffer.from('id-aes256-GCM', 'ascii'), Buffer.from('Apple', 'ascii')]);

/** The plaintext of Apple's payload, parsed, or a thrown error if it does not open with `privateKey`. */
export function openApplePayload(
  { encryptedPassData, ephemeralPublicKey }: { encryptedPassData: string; ephemeralPublicKey: string },
  privateKey: KeyObject = LEAF_PRIVATE_KEY,
): unknown {
  const point = Buffer.from(ephemeralPublicKey, 'base64');
  if (point.length !== 65 || point[0] !== 0x04) throw new Error('the ephemeral public key is not an uncompressed P-256 point');
  const publicKey = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const sharedSecret = diffieHellman({ privateKey, publicKey });
  const key = createHash('sha256')
    .update(Buffer.from([0, 0, 0, 1]))
    .update(sharedSecret)
    .update(OTHER_INFO)
    .digest();
  const sealed = Buffer.from(encryptedPassData, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.alloc(16), { authTagLength: 16 });
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const plaintext = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  return JSON.parse(plaintext.toString('utf8')) as unknown;
}
