import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The mutual TLS fixtures of docs/api.md 10.16 (test/support/tls/client/make.sh says what each is). */
const CLIENT_DIR = join(__dirname, 'tls', 'client');
const pem = (file: string): string => readFileSync(join(CLIENT_DIR, file), 'utf8');

/** The CA that signed every client certificate: a receiver that asks for one trusts it. */
export const CLIENT_CA_FILE = join(CLIENT_DIR, 'client-ca.pem');

export const CLIENT_CA = pem('client-ca.pem');
/** EC P-256, valid for 100 years. */
export const CLIENT = { certificate: pem('client.pem'), privateKey: pem('client.key') };
/** RSA 2048, valid for 100 years. */
export const RSA_CLIENT = { certificate: pem('rsa.pem'), privateKey: pem('rsa.key') };
/** RSA 1024: a key too short. */
export const RSA_1024_CLIENT = { certificate: pem('rsa1024.pem'), privateKey: pem('rsa1024.key') };
/** RSA 8192, no certificate: a key too long (its size is refused before any match). */
export const RSA_8192_KEY = pem('rsa8192.key');
/** RSA 2048 with the public exponent 2^32 + 15, no certificate: an exponent too large. */
export const RSA_LARGE_EXPONENT_KEY = pem('rsa-large-exponent.key');
/** CLIENT's key, certified for 2020 only. */
export const EXPIRED_CLIENT = { certificate: pem('expired.pem'), privateKey: pem('client.key') };
/** CLIENT's key, certified from 2100 only. */
export const FUTURE_CLIENT = { certificate: pem('future.pem'), privateKey: pem('client.key') };
