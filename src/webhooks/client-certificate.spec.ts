import { createHash, createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CLIENT,
  CLIENT_CA,
  EXPIRED_CLIENT,
  FUTURE_CLIENT,
  RSA_1024_CLIENT,
  RSA_8192_KEY,
  RSA_CLIENT,
  RSA_LARGE_EXPONENT_KEY,
} from '../../test/support/client-certificates';
import { certificateProblem, certificateView, privateKeyProblem } from './client-certificate';

/*
 * docs/api.md 10.16: the PEMs a webhook's mutual TLS takes, with the fixtures of
 * test/support/tls/client (made by openssl) and keys node:crypto makes here.
 */

const ecKey = (namedCurve: string) => generateKeyPairSync('ec', { namedCurve }).privateKey;
const UNMATCHED = ecKey('prime256v1').export({ format: 'pem', type: 'pkcs8' }) as string;

describe('certificateProblem', () => {
  it.each([
    ['an EC P-256 certificate', CLIENT.certificate],
    ['an RSA 2048 certificate', RSA_CLIENT.certificate],
    ['a chain: the client certificate, then its CA', CLIENT.certificate + CLIENT_CA],
    ['text around the blocks (RFC 7468)', `Bag Attributes\n${CLIENT.certificate}\n`],
  ])('accepts %s', (_, pem) => {
    expect(certificateProblem(pem)).toBeUndefined();
  });

  it.each([
    ['no PEM at all', 'hello', 'must be PEM (-----BEGIN CERTIFICATE-----): the client certificate, then any intermediates'],
    ['a private key', CLIENT.privateKey, 'must hold certificates only (BEGIN CERTIFICATE blocks), no key or other block'],
    [
      'a certificate and its key',
      CLIENT.certificate + CLIENT.privateKey,
      'must hold certificates only (BEGIN CERTIFICATE blocks), no key or other block',
    ],
    [
      'a block that does not parse',
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
      'certificate 1 of the PEM does not parse',
    ],
    ['an expired certificate', EXPIRED_CLIENT.certificate, 'has expired'],
    ['a certificate not valid yet', FUTURE_CLIENT.certificate, 'is not valid yet (its notBefore is in the future)'],
  ])('refuses %s', (_, pem, problem) => {
    expect(certificateProblem(pem)).toBe(problem);
  });

  it('judges the validity of the first certificate at the moment given', () => {
    expect(certificateProblem(EXPIRED_CLIENT.certificate, new Date('2020-06-01T00:00:00Z'))).toBeUndefined();
  });
});

describe('privateKeyProblem', () => {
  it.each([
    ['an EC P-256 key in PKCS#8', CLIENT],
    ['an RSA 2048 key', RSA_CLIENT],
    ['an EC key in the traditional (SEC 1) form', { ...CLIENT, privateKey: sec1(CLIENT.privateKey) }],
  ])('accepts %s that matches the certificate', (_, { certificate, privateKey }) => {
    expect(privateKeyProblem(privateKey, certificate)).toBeUndefined();
  });

  it('accepts an EC P-384 key (its certificate checked apart)', () => {
    expect(privateKeyProblem(ecKey('secp384r1').export({ format: 'pem', type: 'pkcs8' }) as string, undefined)).toBeUndefined();
  });

  it.each([
    [
      'a key that is not the certificate’s',
      UNMATCHED,
      CLIENT.certificate,
      "does not match the certificate (the first of auth.certificate must be this key's)",
    ],
    [
      'the key of a chain whose first certificate is the CA',
      CLIENT.privateKey,
      CLIENT_CA + CLIENT.certificate,
      "does not match the certificate (the first of auth.certificate must be this key's)",
    ],
    ['an RSA 1024 key', RSA_1024_CLIENT.privateKey, RSA_1024_CLIENT.certificate, 'an RSA key must have 2048 to 4096 bits'],
    ['an RSA 8192 key', RSA_8192_KEY, RSA_CLIENT.certificate, 'an RSA key must have 2048 to 4096 bits'],
    [
      'an RSA key whose public exponent is over 2^32',
      RSA_LARGE_EXPONENT_KEY,
      RSA_CLIENT.certificate,
      'an RSA key must have a public exponent of at most 2^32 (65537 in practice)',
    ],
    [
      'an EC P-521 key',
      ecKey('secp521r1').export({ format: 'pem', type: 'pkcs8' }),
      CLIENT.certificate,
      'an EC key must be on P-256 or P-384',
    ],
    [
      'an Ed25519 key',
      generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }),
      CLIENT.certificate,
      'must be an RSA or an EC key',
    ],
    ['an encrypted PKCS#8 key', encrypted(CLIENT.privateKey), CLIENT.certificate, 'must not be encrypted'],
    [
      'a certificate',
      CLIENT.certificate,
      CLIENT.certificate,
      'must be one unencrypted private key in PEM (BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)',
    ],
    [
      'two keys',
      CLIENT.privateKey + UNMATCHED,
      CLIENT.certificate,
      'must be one unencrypted private key in PEM (BEGIN PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)',
    ],
    [
      'a block that does not parse',
      '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
      CLIENT.certificate,
      'does not parse as a private key',
    ],
  ])('refuses %s', (_, key, certificate, problem) => {
    expect(privateKeyProblem(key as string, certificate)).toBe(problem);
  });

  it('refuses a traditional key encrypted with a Proc-Type header', () => {
    const traditional = `-----BEGIN EC PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00\n\nAAAA\n-----END EC PRIVATE KEY-----\n`;
    expect(privateKeyProblem(traditional, CLIENT.certificate)).toBe('must not be encrypted');
  });

  it('leaves the match to the certificate’s own problem when the certificate is wrong', () => {
    expect(privateKeyProblem(CLIENT.privateKey, 'not a certificate')).toBeUndefined();
  });

  it('never quotes the key', () => {
    const problems = [UNMATCHED, encrypted(CLIENT.privateKey)].map((key) => privateKeyProblem(key, CLIENT.certificate) ?? '');
    expect(problems.join(' ')).not.toMatch(/MII|BEGIN/);
  });
});

describe('certificateView', () => {
  it("shows the first certificate's subject, its expiry in ISO 8601 and the SHA-256 of its DER in hex", () => {
    expect(certificateView(CLIENT.certificate + CLIENT_CA)).toEqual({
      subject: 'CN=webhooks.acme.test, O=Acme',
      notAfter: '2125-12-31T00:00:00.000Z',
      sha256: createHash('sha256').update(new X509Certificate(CLIENT.certificate).raw).digest('hex'),
    });
  });
});

function sec1(pkcs8: string): string {
  return createPrivateKey(pkcs8).export({ format: 'pem', type: 'sec1' }) as string;
}

function encrypted(pkcs8: string): string {
  return createPrivateKey(pkcs8).export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'p' }) as string;
}
