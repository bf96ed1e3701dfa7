import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/unit/domain-errors';
import { processorBaseUrl, processorCredentials } from './issuer-settings';
import { lithic } from './lithic.processor';
import { marqeta } from './marqeta.processor';

const invalid = (message: string) => ({ status: 400, body: { code: 'invalid', message: [message] } });

describe('processorBaseUrl (docs/api.md 6.1)', () => {
  it.each([
    ['https://acme-api.marqeta.com/v3', 'https://acme-api.marqeta.com/v3'],
    ['https://api.lithic.com/', 'https://api.lithic.com'],
    ['https://API.Lithic.com:8443//', 'https://api.lithic.com:8443'],
    ['http://127.0.0.1:4010', 'http://127.0.0.1:4010'],
    ['http://127.255.0.9/sim', 'http://127.255.0.9/sim'],
    ['http://[::1]:4010/', 'http://[::1]:4010'],
  ])('takes %s as %s', (given, stored) => {
    expect(processorBaseUrl(given, false)).toBe(stored);
  });

  it.each([
    ['http://processor.example.com', '--base-url: must use https (http only to a loopback address, 127.0.0.0/8 or [::1])'],
    ['http://localhost:4010', '--base-url: must use https (http only to a loopback address, 127.0.0.0/8 or [::1])'],
    ['http://10.0.0.1:4010', '--base-url: must use https (http only to a loopback address, 127.0.0.0/8 or [::1])'],
    ['http://[::ffff:127.0.0.1]:4010', '--base-url: must use https (http only to a loopback address, 127.0.0.0/8 or [::1])'],
    ['ftp://127.0.0.1', '--base-url: must use https'],
    ['https://user:pw@api.lithic.com', '--base-url: must not hold a user name or password'],
    ['https://api.lithic.com/?x=1', '--base-url: must have no query or fragment'],
    ['https://api.lithic.com/#top', '--base-url: must have no query or fragment'],
    ['https://api.lithic.com/?', '--base-url: must have no query or fragment'],
    ['api.lithic.com', '--base-url: must be an absolute URL'],
  ])('refuses %s', (given, message) => {
    expect(thrownBy(() => processorBaseUrl(given, false))).toEqual(invalid(message));
  });

  it('refuses http even to loopback with NODE_ENV=production, and takes https', () => {
    expect(thrownBy(() => processorBaseUrl('http://127.0.0.1:4010', true))).toEqual(
      invalid('--base-url: must use https with NODE_ENV=production'),
    );
    expect(processorBaseUrl('https://api.lithic.com', true)).toBe('https://api.lithic.com');
  });
});

describe('processorCredentials (docs/api.md 8)', () => {
  it("takes exactly the adapter's members", () => {
    expect(processorCredentials(marqeta, { username: 'app', password: 'secret' })).toEqual({ username: 'app', password: 'secret' });
    expect(processorCredentials(lithic, { apiKey: 'sk' })).toEqual({ apiKey: 'sk' });
  });

  it.each([
    ['an array', ['sk']],
    ['a string', 'sk'],
    ['null', null],
  ])('refuses %s', (_, file) => {
    expect(thrownBy(() => processorCredentials(lithic, file))).toEqual(invalid('--credentials-file: must hold a JSON object of "apiKey"'));
  });

  it.each([
    ['a missing member', { username: 'app' }, 'password'],
    ['an empty member', { username: '', password: 'p' }, 'username'],
    ['a member that is not a string', { username: 'app', password: 42 }, 'password'],
    ['a control character', { username: 'app', password: 'p\n' }, 'password'],
    ['a member over 255 characters', { username: 'a'.repeat(256), password: 'p' }, 'username'],
  ])('refuses %s, naming it', (_, file, name) => {
    expect(thrownBy(() => processorCredentials(marqeta, file))).toEqual(
      invalid(`--credentials-file: "${name}" must be a string of 1 to 255 characters without control characters`),
    );
  });

  it('refuses an unknown member without echoing anything of the file', () => {
    const seen = thrownBy(() => processorCredentials(lithic, { apiKey: 'sk', 'sk-live-secret': 'x' }));
    expect(seen).toEqual(invalid('--credentials-file: has unknown members; must hold a JSON object of "apiKey"'));
    expect(JSON.stringify(seen)).not.toContain('sk-live-secret');
  });
});
