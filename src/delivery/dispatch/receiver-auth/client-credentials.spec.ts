import { describe, expect, it } from 'vitest';
import type { OAuth2Settings } from '../../../webhooks/receiver-auth';
import { accessTokenOf, tokenRequestOf } from './client-credentials';

const SETTINGS: OAuth2Settings = { type: 'oauth2', tokenUrl: 'https://auth.example.com/token', clientId: 'id', clientSecret: 'secret' };
const answer = (json: unknown) => Buffer.from(typeof json === 'string' ? json : JSON.stringify(json));

describe('tokenRequestOf (RFC 6749 4.4.2, docs/api.md 10.16)', () => {
  it('posts the form grant_type=client_credentials, asks for JSON, and authenticates the client with HTTP Basic', () => {
    expect(tokenRequestOf(SETTINGS)).toEqual({
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        authorization: `Basic ${Buffer.from('id:secret').toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
  });

  it('adds scope and audience when set, form-encoded', () => {
    expect(tokenRequestOf({ ...SETTINGS, scope: 'hooks:write read', audience: 'https://api.acme.test/' }).body).toBe(
      'grant_type=client_credentials&scope=hooks%3Awrite+read&audience=https%3A%2F%2Fapi.acme.test%2F',
    );
  });

  it('form-urlencodes the id and the secret before joining them with a colon (RFC 6749 2.3.1)', () => {
    const { authorization } = tokenRequestOf({ ...SETTINGS, clientId: 'acme:hooks', clientSecret: 'p@ss wörd+/=' }).headers;
    expect(Buffer.from(authorization.slice('Basic '.length), 'base64').toString()).toBe('acme%3Ahooks:p%40ss+w%C3%B6rd%2B%2F%3D');
  });
});

describe('accessTokenOf (RFC 6749 5.1, RFC 6750 2.1)', () => {
  it('reads the token and its lifetime', () => {
    expect(accessTokenOf(answer({ access_token: 'abc.DEF-123_~+/==', token_type: 'Bearer', expires_in: 3600 }))).toEqual({
      value: 'abc.DEF-123_~+/==',
      expiresInSeconds: 3600,
    });
  });

  it('takes a token without token_type, and bearer in any case', () => {
    expect(accessTokenOf(answer({ access_token: 't' }))).toEqual({ value: 't' });
    expect(accessTokenOf(answer({ access_token: 't', token_type: 'BEARER' }))).toEqual({ value: 't' });
  });

  it.each([
    ['a string of seconds', '120', 120],
    ['no lifetime at all', undefined, undefined],
    ['a negative lifetime', -5, undefined],
    ['a lifetime that is no number', 'soon', undefined],
  ])('takes an expires_in of %s as %s', (_, expiresIn, seconds) => {
    expect(accessTokenOf(answer({ access_token: 't', expires_in: expiresIn }))?.expiresInSeconds).toBe(seconds);
  });

  it.each([
    ['no body (longer than 64 KiB)', undefined],
    ['a body that is not JSON', answer('access_token=t')],
    ['JSON that is not an object', answer('["t"]')],
    ['no access_token', answer({ token_type: 'bearer' })],
    ['an empty access_token', answer({ access_token: '' })],
    ['an access_token of 4097 characters', answer({ access_token: 'a'.repeat(4097) })],
    ['an access_token with a space', answer({ access_token: 'a b' })],
    ['an access_token with a quote', answer({ access_token: 'a"b' })],
    ['an access_token that is a number', answer({ access_token: 42 })],
    ['a token_type other than bearer', answer({ access_token: 't', token_type: 'mac' })],
  ])('finds no token in %s', (_, body) => {
    expect(accessTokenOf(body)).toBeUndefined();
  });

  it('takes an access_token of 4096 characters', () => {
    expect(accessTokenOf(answer({ access_token: 'a'.repeat(4096) }))?.value).toHaveLength(4096);
  });
});
