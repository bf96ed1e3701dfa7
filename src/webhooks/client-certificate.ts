import { createHash, createPrivateKey, KeyObject, X509Certificate } from 'node:crypto';

/*
 * The client certificate of a webhook's mutual TLS (docs/api.md 10.16): what a write accepts as
 * its `certificate` and `privateKey` PEMs, and what reads show of the certificate. Only
 * node:crypto reads them. A problem never quotes the PEM (the key is a credential).
 */

/** What reads show of the client certificate: the leaf's subject, its expiry (ISO 8601), the SHA-256 of its DER in hex. */
export interface CertificateView {
  readonly subject: string;
  readonly notAfter: string;
  readonly sha256: string;
}

/** RFC 7468's blocks: a label, then base64 (and, in the traditional key forms, headers such as Proc-Type). */
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

/** The key forms OpenSSL writes unencrypted: PKCS#8, and the traditional RSA and EC ones. */
const KEY_LABELS = new Set(['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY']);
/** The curves docs/api.md 10.16 allows, by OpenSSL's names: P-256 and P-384. */
const CURVES = new Set(['prime256v1', 'secp384r1']);
/**
 * RSA's bounds (docs/api.md 10.16): signing in the handshake costs the event loop about the cube
 * of the modulus, times the exponent's length (RSA-15360: ~183 ms an attempt; a large exponent ~1 s).
 */
const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 4096;
const MAX_RSA_EXPONENT = 2n ** 32n;

const pemBlocks = (pem: string): { label: string; text: string }[] =>
  [...pem.matchAll(PEM_BLOCK)].map((match) => ({ label: match[1], text: match[0] }));

/** The certificates of a PEM, the client's first; a string naming what is wrong when it holds anything else or one does not parse. */
function certificatesOf(pem: string): X509Certificate[] | string {
  const blocks = pemBlocks(pem);
  if (blocks.length === 0) return 'must be PEM (-----BEGIN CERTIFICATE-----): the client certificate, then any intermediates';
  if (blocks.some(({ label }) => label !== 'CERTIFICATE'))
    return 'must hold certificates only (BEGIN CERTIFICATE blocks), no key or other block';
  const certificates: X509Certificate[] = [];
  for (const [index, { text }] of blocks.entries()) {
    try {
      certificates.push(new X509Certificate(text));
    } catch {
      return `certificate ${index + 1} of the PEM does not parse`;
    }
  }
  return certificates;
}

/** What is wrong with a `certificate` PEM (undefined: nothing): it parses, and its first certificate is valid at `now`. */
export function certificateProblem(pem: string, now = new Date()): string | undefined {
  const certificates = certificatesOf(pem);
  if (typeof certificates === 'string') return certificates;
  const [leaf] = certificates;
  if (now < new Date(leaf.validFrom)) return 'is not valid yet (its notBefore is in the future)';
  if (now > new Date(leaf.validTo)) return 'has expired';
  return undefined;
}

function privateKeyOf(pem: string): KeyObject | string {
  const blocks = pemBlocks(pem);
  const encrypted = blocks.some(({ label, text }) => label === 'ENCRYPTED PRIVATE KEY' || /^Proc-Type:\s*4,ENCRYPTED/m.test(text));
  if (encrypted) return 'must not be encrypted';
  if (blocks.length !== 1 || !KEY_LABELS.has(blocks[0].label)) {
    return 'must be one unencrypted private key in PEM (BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)';
  }
  try {
    return createPrivateKey({ key: blocks[0].text, format: 'pem' });
  } catch {
    return 'does not parse as a private key';
  }
}

/**
 * What is wrong with a `privateKey` PEM (undefined: nothing): one unencrypted key, RSA of 2048
 * to 4096 bits with an exponent of at most 2^32 or EC on P-256 or P-384, that matches the first certificate of `certificate`
 * (not checked when that one is itself wrong: its own problem names it).
 */
export function privateKeyProblem(pem: string, certificate: unknown): string | undefined {
  const key = privateKeyOf(pem);
  if (typeof key === 'string') return key;
  const { asymmetricKeyType: type, asymmetricKeyDetails: details } = key;
  if (type === 'rsa') {
    const bits = details?.modulusLength ?? 0;
    if (bits < MIN_RSA_BITS || bits > MAX_RSA_BITS) return `an RSA key must have ${MIN_RSA_BITS} to ${MAX_RSA_BITS} bits`;
    if ((details?.publicExponent ?? 0n) > MAX_RSA_EXPONENT)
      return 'an RSA key must have a public exponent of at most 2^32 (65537 in practice)';
  }
  if (type === 'ec' && !CURVES.has(details?.namedCurve ?? '')) return 'an EC key must be on P-256 or P-384';
  if (type !== 'rsa' && type !== 'ec') return 'must be an RSA or an EC key';
  const certificates = typeof certificate === 'string' ? certificatesOf(certificate) : undefined;
  if (Array.isArray(certificates) && !certificates[0].checkPrivateKey(key)) {
    return "does not match the certificate (the first of auth.certificate must be this key's)";
  }
  return undefined;
}

/** What reads show of a valid `certificate` PEM: its first certificate's subject (`C=…, O=…, CN=…`), expiry and fingerprint. */
export function certificateView(pem: string): CertificateView {
  const certificates = certificatesOf(pem);
  if (typeof certificates === 'string') throw new Error(`the client certificate ${certificates}`);
  const [leaf] = certificates;
  return {
    subject: leaf.subject.split('\n').join(', '),
    notAfter: new Date(leaf.validTo).toISOString(),
    sha256: createHash('sha256').update(leaf.raw).digest('hex'),
  };
}
