import { createCipheriv, createECDH, createHash, X509Certificate } from 'node:crypto';

/*
 * The encrypted pass data of Apple push provisioning as the simulator makes it (docs/api.md 6.1),
 * real wherever it can be: encrypted to the public key of the leaf certificate the wallet sent,
 * so that whoever holds its private key (the device; a test) opens it and finds the nonce. The
 * scheme is Apple Pay's payment-token derivation without its merchant part: a fresh P-256 key,
 * ECDH with the leaf's key, the NIST SP 800-56A concatenation KDF, AES-256-GCM.
 */

/** The KDF's other info: the algorithm id's length (13), the algorithm id, the party U info. */
const OTHER_INFO = Buffer.concat([Buffer.from([0x0d]), Buffer.from('id-aes256-GCM', 'ascii'), Buffer.from('Apple', 'ascii')]);
const COUNTER = Buffer.from([0x00, 0x00, 0x00, 0x01]);
/** GCM's IV: 16 zero bytes, safe because every key is used once (a fresh ephemeral key per payload). */
const IV = Buffer.alloc(16);

/** NIST SP 800-56A's concatenation KDF for one 256-bit key: SHA-256(counter 00000001 || Z || other info). */
export function passDataKey(sharedSecret: Buffer): Buffer {
  return createHash('sha256').update(COUNTER).update(sharedSecret).update(OTHER_INFO).digest();
}

/** The leaf's P-256 public key as an uncompressed point; undefined when the leaf is not a certificate with one. */
function leafPoint(leafDerBase64: string): Buffer | undefined {
  try {
    const key = new X509Certificate(Buffer.from(leafDerBase64, 'base64')).publicKey;
    if (key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return undefined;
    const { x, y } = key.export({ format: 'jwk' });
    return Buffer.concat([Buffer.from([0x04]), Buffer.from(x!, 'base64url'), Buffer.from(y!, 'base64url')]);
  } catch {
    return undefined;
  }
}

/**
 * `encryptedPassData` (ciphertext, then the 16-byte tag) and `ephemeralPublicKey` (an uncompressed
 * point), base64. A leaf that carries no P-256 key (a developer's placeholder) gets a payload
 * sealed to a throwaway key: well formed, and nobody can open it.
 */
export function applePassData(leafDerBase64: string, plaintext: object): { encryptedPassData: string; ephemeralPublicKey: string } {
  const recipient = leafPoint(leafDerBase64) ?? createECDH('prime256v1').generateKeys();
  const ephemeral = createECDH('prime256v1');
  const ephemeralPublicKey = ephemeral.generateKeys();
  const cipher = createCipheriv('aes-256-gcm', passDataKey(ephemeral.computeSecret(recipient)), IV);
  const sealed = Buffer.concat([cipher.update(JSON.stringify(plaintext), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { encryptedPassData: sealed.toString('base64'), ephemeralPublicKey: ephemeralPublicKey.toString('base64') };
}
