import { createHash, randomBytes } from 'node:crypto';

/** Session and access tokens: 256 random bits, base64url (43 characters). */
export const newOpaqueToken = (): string => randomBytes(32).toString('base64url');

/** Anything else cannot be a token of ours, so it is refused without a database round trip. */
export const isWellFormedToken = (value: string): boolean => /^[A-Za-z0-9_-]{43}$/.test(value);

/** Tokens are stored only as this hash (hex SHA-256). */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
