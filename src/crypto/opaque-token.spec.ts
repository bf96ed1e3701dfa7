import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashToken, isWellFormedToken, newOpaqueToken } from './opaque-token';

describe('newOpaqueToken', () => {
  it('is 43 base64url characters (256 bits)', () => {
    const token = newOpaqueToken();
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url').length).toBe(32);
  });

  it('is unique across many calls', () => {
    const tokens = new Set(Array.from({ length: 1000 }, () => newOpaqueToken()));
    expect(tokens.size).toBe(1000);
  });

  it('is always well formed', () => {
    const malformed = Array.from({ length: 200 }, () => newOpaqueToken()).filter((t) => !isWellFormedToken(t));
    expect(malformed).toEqual([]);
  });
});

describe('isWellFormedToken', () => {
  const valid = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123-_9';

  it('accepts 43 characters of the base64url alphabet', () => {
    expect(valid.length).toBe(43);
    expect(isWellFormedToken(valid)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['42 characters', valid.slice(1)],
    ['44 characters', `${valid}A`],
    ['base64 "+"', `${valid.slice(1)}+`],
    ['base64 "/"', `${valid.slice(1)}/`],
    ['padding "="', `${valid.slice(1)}=`],
    ['a space', `${valid.slice(1)} `],
    ['a leading space', ` ${valid.slice(1)}`],
    ['a trailing newline', `${valid}\n`],
    ['a dot', `${valid.slice(1)}.`],
    ['a non-ASCII letter', `${valid.slice(1)}é`],
  ])('refuses %s', (_, value) => {
    expect(isWellFormedToken(value)).toBe(false);
  });
});

describe('hashToken', () => {
  it('is the hex SHA-256 of the token', () => {
    const token = newOpaqueToken();
    expect(hashToken(token)).toBe(createHash('sha256').update(token).digest('hex'));
  });

  it('matches a known vector', () => {
    expect(hashToken('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('is 64 lowercase hex characters and differs from the token', () => {
    const token = newOpaqueToken();
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toContain(token);
  });
});
