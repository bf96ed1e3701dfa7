import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config';
import { keyIdOf, SecretBinding, SecretBox } from './secret-box';

const boxWith = (current: Buffer, previous: Buffer[] = []): SecretBox =>
  new SecretBox({ secretKeys: { current, previous } } as unknown as AppConfig);

const ROW: SecretBinding = { table: 'webhooks', organizationId: 7, row: 'orders' };

const SECRET = 'whsec_c2VjcmV0LXNpZ25pbmcta2V5LWZvci10ZXN0aW5nLW9ubHk=';

describe('SecretBox', () => {
  it('opens what it sealed', () => {
    const box = boxWith(randomBytes(32));
    expect(box.open(box.seal(SECRET, ROW), ROW)).toBe(SECRET);
  });

  it('round-trips an empty string and non-ASCII text', () => {
    const box = boxWith(randomBytes(32));
    expect([box.open(box.seal('', ROW), ROW), box.open(box.seal('clé 🔑 秘密', ROW), ROW)]).toEqual(['', 'clé 🔑 秘密']);
  });

  it('does not store the plaintext in the ciphertext', () => {
    const sealed = boxWith(randomBytes(32)).seal(SECRET, ROW);
    expect(sealed.ciphertext).not.toContain(SECRET);
    expect(Buffer.from(sealed.ciphertext, 'base64').toString('latin1')).not.toContain(SECRET);
  });

  it('stores base64 of iv(12) || tag(16) || ciphertext', () => {
    const sealed = boxWith(randomBytes(32)).seal('abcde', ROW);
    expect(Buffer.from(sealed.ciphertext, 'base64').length).toBe(12 + 16 + 5);
  });

  it('gives a different ciphertext each time (random IV)', () => {
    const box = boxWith(randomBytes(32));
    const [a, b] = [box.seal(SECRET, ROW), box.seal(SECRET, ROW)];
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(Buffer.from(a.ciphertext, 'base64').subarray(0, 12).equals(Buffer.from(b.ciphertext, 'base64').subarray(0, 12))).toBe(false);
  });

  it('names the key by the first 16 hex characters of its SHA-256', () => {
    const key = randomBytes(32);
    const expected = createHash('sha256').update(key).digest('hex').slice(0, 16);
    expect(boxWith(key).seal(SECRET, ROW).keyId).toBe(expected);
    expect(keyIdOf(key)).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses a ciphertext with any one byte changed', () => {
    const box = boxWith(randomBytes(32));
    const sealed = box.seal(SECRET, ROW);
    const blob = Buffer.from(sealed.ciphertext, 'base64');
    const opened: number[] = [];
    for (let i = 0; i < blob.length; i++) {
      const tampered = Buffer.from(blob);
      tampered[i] ^= 0x01;
      try {
        box.open({ keyId: sealed.keyId, ciphertext: tampered.toString('base64') }, ROW);
        opened.push(i);
      } catch {
        // expected: authentication fails
      }
    }
    expect(opened).toEqual([]);
  });

  it.each([
    ['the IV', 0],
    ['the tag', 12],
    ['the ciphertext', 28],
  ])('throws an authentication error when %s is changed', (_, index) => {
    const box = boxWith(randomBytes(32));
    const sealed = box.seal(SECRET, ROW);
    const blob = Buffer.from(sealed.ciphertext, 'base64');
    blob[index] ^= 0x80;
    expect(() => box.open({ keyId: sealed.keyId, ciphertext: blob.toString('base64') }, ROW)).toThrow(/unable to authenticate data/);
  });

  it('refuses a ciphertext cut short', () => {
    const box = boxWith(randomBytes(32));
    const sealed = box.seal(SECRET, ROW);
    const blob = Buffer.from(sealed.ciphertext, 'base64');
    expect(() => box.open({ keyId: sealed.keyId, ciphertext: blob.subarray(0, blob.length - 1).toString('base64') }, ROW)).toThrow();
  });

  it('does not open a secret sealed under another key that claims its key id', () => {
    const key = randomBytes(32);
    const sealed = boxWith(randomBytes(32)).seal(SECRET, ROW);
    expect(() => boxWith(key).open({ keyId: keyIdOf(key), ciphertext: sealed.ciphertext }, ROW)).toThrow(/unable to authenticate data/);
  });

  describe('key rotation', () => {
    it('opens a secret sealed under an old key that is in previous', () => {
      const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
      const sealed = boxWith(oldKey).seal(SECRET, ROW);
      expect(boxWith(newKey, [oldKey]).open(sealed, ROW)).toBe(SECRET);
    });

    it('seals new secrets under the current key, not a previous one', () => {
      const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
      const sealed = boxWith(newKey, [oldKey]).seal(SECRET, ROW);
      expect(sealed.keyId).toBe(keyIdOf(newKey));
      expect(boxWith(newKey).open(sealed, ROW)).toBe(SECRET);
    });

    it('fails with an error naming the missing key id when the old key is not in previous', () => {
      const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
      const sealed = boxWith(oldKey).seal(SECRET, ROW);
      expect(() => boxWith(newKey).open(sealed, ROW)).toThrow(
        `no key with id ${keyIdOf(oldKey)} (was SECRET_KEY rotated without PREVIOUS_SECRET_KEYS?)`,
      );
    });

    it('does not show any key or the ciphertext in the missing-key error', () => {
      const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
      const sealed = boxWith(oldKey).seal(SECRET, ROW);
      let message = '';
      try {
        boxWith(newKey).open(sealed, ROW);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).not.toBe('');
      for (const hidden of [oldKey.toString('base64'), newKey.toString('base64'), oldKey.toString('hex'), sealed.ciphertext]) {
        expect(message).not.toContain(hidden);
      }
    });
  });

  describe('binding to a row (GCM additional data)', () => {
    it.each<[string, SecretBinding]>([
      ['another row of the same table', { ...ROW, row: 'refunds' }],
      ['the same row name in another organization', { ...ROW, organizationId: 8 }],
      ['another table', { ...ROW, table: 'cards' }],
      ['a numeric row id written as the same digits in another table', { table: 'cards', organizationId: 7, row: 'orders' }],
    ])('does not open a secret moved to %s', (_, elsewhere) => {
      const box = boxWith(randomBytes(32));
      expect(() => box.open(box.seal(SECRET, ROW), elsewhere)).toThrow(/unable to authenticate data/);
    });

    it("does not open an issuer's credentials (a row of no organization) as another issuer's, nor in an organization", () => {
      const box = boxWith(randomBytes(32));
      const issuer: SecretBinding = { table: 'issuers', organizationId: null, row: 5 };
      const sealed = box.seal(SECRET, issuer);
      expect(box.open(sealed, issuer)).toBe(SECRET);
      expect(() => box.open(sealed, { ...issuer, row: 6 })).toThrow(/unable to authenticate data/);
      expect(() => box.open(sealed, { ...issuer, organizationId: 0 })).toThrow(/unable to authenticate data/);
    });

    it('binds a numeric row and its decimal string alike (one row identity, one encoding)', () => {
      const box = boxWith(randomBytes(32));
      const card: SecretBinding = { table: 'cards', organizationId: 3, row: 42 };
      expect(box.open(box.seal(SECRET, card), { ...card, row: '42' })).toBe(SECRET);
    });

    it('does not open a bound secret without its binding, nor an unbound one with a binding', () => {
      const box = boxWith(randomBytes(32));
      expect(() => box.openUnbound(box.seal(SECRET, ROW))).toThrow(/unable to authenticate data/);
    });

    it('opens a secret sealed before binding existed only through openUnbound (the migration)', () => {
      const key = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(SECRET, 'utf8'), cipher.final()]);
      const legacy = { ciphertext: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64'), keyId: keyIdOf(key) };
      expect(boxWith(key).openUnbound(legacy)).toBe(SECRET);
      expect(() => boxWith(key).open(legacy, ROW)).toThrow(/unable to authenticate data/);
    });
  });
});

describe('SecretBox.openJson', () => {
  const box = boxWith(randomBytes(32));
  const isList = (value: unknown): string[] | undefined =>
    Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;

  it('opens a sealed JSON value and decodes it', () => {
    expect(box.openJson(box.seal('["a","b"]', ROW), ROW, 'the list', isList)).toEqual(['a', 'b']);
  });

  it('throws for a value of another shape, naming what it is and quoting none of it', () => {
    expect(() => box.openJson(box.seal('{"s3cret":1}', ROW), ROW, 'the list', isList)).toThrow(/^the list: not of the shape stored$/);
  });

  it('throws for text that is not JSON without the parser’s message, which would quote it', () => {
    expect(() => box.openJson(box.seal('["s3cret"', ROW), ROW, 'the list', isList)).toThrow(/^the list: not JSON$/);
  });

  it('throws as open does for a value bound to another row', () => {
    const sealed = box.seal('[]', { ...ROW, row: 'other' });
    expect(() => box.openJson(sealed, ROW, 'the list', isList)).toThrow(/unable to authenticate/);
  });
});
