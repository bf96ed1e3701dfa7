import { describe, expect, it } from 'vitest';
import { credentialOriginProblems, newOrigins } from './credential-origins';
import type { StoredWebhook } from './webhook.model';

/* docs/api.md 10.15: credentials stay with the origins they were written for. */

const STORED: StoredWebhook = {
  url: 'https://hooks.acme.test/in',
  events: { 'card.updated': 'https://cards.acme.test:8443/c' },
  headerNames: ['X-Api-Key', 'X-Tenant'],
  auth: { type: 'oauth2', tokenUrl: 'https://auth.acme.test/token', clientId: 'id' },
};
const rule = (field: string, origin: string) =>
  `${field}: must be given again, or null, with a URL on an origin the webhook has not used (${origin})`;

describe('newOrigins', () => {
  it('finds the origins none of the URLs had, each once: another host, port or scheme', () => {
    expect(
      newOrigins(STORED, ['https://evil.test/a', 'https://evil.test/b', 'https://hooks.acme.test:444/in', 'https://cards.acme.test/c']),
    ).toEqual(['https://evil.test', 'https://hooks.acme.test:444', 'https://cards.acme.test']);
  });

  it('takes another path, or the default port written out, as the same origin', () => {
    expect(newOrigins(STORED, ['https://hooks.acme.test:443/other', 'https://cards.acme.test:8443/new'])).toEqual([]);
  });
});

describe('credentialOriginProblems', () => {
  it('refuses a URL on a new origin that gives neither the headers nor the auth again, naming both', () => {
    expect(credentialOriginProblems(STORED, ['https://evil.test/in'], { auth: false })).toEqual([
      rule('headers', 'https://evil.test'),
      rule('auth', 'https://evil.test'),
    ]);
  });

  it('takes a URL on a new origin with the headers and the auth given again, or removed', () => {
    expect(credentialOriginProblems(STORED, ['https://evil.test/in'], { headers: { replace: [] }, auth: true })).toEqual([]);
    expect(credentialOriginProblems(STORED, ['https://evil.test/in'], { headers: { merge: null }, auth: true })).toEqual([]);
  });

  it('refuses a merge of headers that leaves a stored one as it was, and takes one naming each in any case', () => {
    const some = { headers: { merge: { 'x-api-key': 'new' } }, auth: true };
    expect(credentialOriginProblems(STORED, ['https://evil.test/in'], some)).toEqual([rule('headers', 'https://evil.test')]);
    const all = { headers: { merge: { 'x-api-key': 'new', 'X-TENANT': null } }, auth: true };
    expect(credentialOriginProblems(STORED, ['https://evil.test/in'], all)).toEqual([]);
  });

  it('asks nothing of a URL on an origin the webhook already had, nor of a webhook without credentials', () => {
    expect(credentialOriginProblems(STORED, ['https://cards.acme.test:8443/moved'], { auth: false })).toEqual([]);
    expect(credentialOriginProblems({ url: STORED.url, events: {} }, ['https://evil.test/in'], { auth: false })).toEqual([]);
  });
});
