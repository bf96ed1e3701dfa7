import { describe, expect, it, vi } from 'vitest';
import { CLIENT, CLIENT_CA, EXPIRED_CLIENT, RSA_1024_CLIENT } from '../../test/support/client-certificates';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import type { RequestParts } from '../common/validation/request-input';
import type { UrlResolution } from '../url-safety/url-resolution';
import { certificateView } from './client-certificate';
import { authorizationProblems, receiverAuthOf } from './receiver-auth';
import { CreateWebhookPipe, ReplaceWebhookPipe, UpdateWebhookPipe } from './webhook-validation.pipes';

/*
 * A webhook's `auth` (docs/api.md 10.16) through the pipes of its writes: each member validated
 * and named by its path, the token URL under the URL rules beside the webhook's own, and the
 * draft a write stores (what reads show, the settings it seals).
 */

const U = 'https://hooks.example.com/in';
const OAUTH = { type: 'oauth2', tokenUrl: 'https://Auth.Example.com/token', clientId: 'id', clientSecret: 's3cret' };

const request = (body: unknown): RequestParts => ({ params: { name: 'hook' }, query: {}, body, headers: {} });
const resolution = { check: vi.fn<UrlResolution['check']>(async () => ({ kind: 'ok' })) };
const create = async (auth: unknown) =>
  (await new CreateWebhookPipe(resolution as unknown as UrlResolution).transform(request({ url: U, auth }))).draft;
const patch = async (body: unknown) => (await new UpdateWebhookPipe(resolution as unknown as UrlResolution).transform(request(body))).patch;
const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });

describe('auth on a write (docs/api.md 10.16)', () => {
  it('takes oauth2: reads show all but the secret, the settings keep the normalized token URL, which is resolved with the others', async () => {
    const draft = await create({ ...OAUTH, scope: 'hooks:write', audience: 'https://api.acme.test' });
    const tokenUrl = 'https://auth.example.com/token';
    expect(draft.auth).toEqual({
      view: { type: 'oauth2', tokenUrl, clientId: 'id', scope: 'hooks:write', audience: 'https://api.acme.test' },
      settings: {
        type: 'oauth2',
        tokenUrl,
        clientId: 'id',
        clientSecret: 's3cret',
        scope: 'hooks:write',
        audience: 'https://api.acme.test',
      },
      tokenUrl: { href: tokenUrl, hostname: 'auth.example.com' },
    });
  });

  it('takes mtls: reads show the certificate, the settings keep both PEMs', async () => {
    const auth = { type: 'mtls', certificate: CLIENT.certificate + CLIENT_CA, privateKey: CLIENT.privateKey };
    expect((await create(auth)).auth).toEqual({
      view: { type: 'mtls', certificate: certificateView(CLIENT.certificate) },
      settings: auth,
    });
  });

  it.each([
    ['not an object', 'oauth2', ['auth: must be an object']],
    ['no type', { clientId: 'id' }, ['auth.type: is required']],
    ['an unknown type, whatever else it holds', { type: 'basic', clientId: 'id', privateKey: 'x' }, ['auth.type: must be oauth2 or mtls']],
    ['no client secret', { ...OAUTH, clientSecret: undefined }, ['auth.clientSecret: is required']],
    ['an empty client id', { ...OAUTH, clientId: '' }, ['auth.clientId: must be 1 to 255 characters']],
    ['a client id of 256 characters', { ...OAUTH, clientId: 'i'.repeat(256) }, ['auth.clientId: must be 1 to 255 characters']],
    ['a secret of 1025 characters', { ...OAUTH, clientSecret: 's'.repeat(1025) }, ['auth.clientSecret: must be 1 to 1024 characters']],
    ['a null scope', { ...OAUTH, scope: null }, ['auth.scope: must be a string']],
    ['an audience of 1025 characters', { ...OAUTH, audience: 'a'.repeat(1025) }, ['auth.audience: must be 1 to 1024 characters']],
    ['a number for a token URL', { ...OAUTH, tokenUrl: 5 }, ['auth.tokenUrl: must be a string']],
    ['a member of the other type', { ...OAUTH, certificate: CLIENT.certificate }, ['auth.certificate: unknown member']],
    ['an unknown member', { ...OAUTH, grantType: 'password' }, ['auth.grantType: unknown member']],
    [
      'an mtls key that does not match',
      { type: 'mtls', certificate: CLIENT.certificate, privateKey: RSA_1024_CLIENT.privateKey },
      ['auth.privateKey: an RSA key must have 2048 to 4096 bits'],
    ],
    ['an expired certificate', { type: 'mtls', ...EXPIRED_CLIENT }, ['auth.certificate: has expired']],
    [
      'a key given as the certificate',
      { type: 'mtls', certificate: CLIENT.privateKey, privateKey: CLIENT.privateKey },
      ['auth.certificate: must hold certificates only (BEGIN CERTIFICATE blocks), no key or other block'],
    ],
  ])('refuses %s with 400 bad request naming the member', async (_, auth, message) => {
    expect(await rejectionOf(create(auth))).toEqual(badRequest(...message));
  });

  it('refuses a token URL that breaks the URL rules with 400 invalid url naming auth.tokenUrl, beside the webhook’s own', async () => {
    const pipe = new CreateWebhookPipe(resolution as unknown as UrlResolution);
    const body = { url: 'http://hooks.example.com/', auth: { ...OAUTH, tokenUrl: 'https://localhost/token' } };
    expect(await rejectionOf(pipe.transform(request(body)))).toEqual({
      status: 400,
      body: { code: 'invalid url', message: ['url: must use https', 'auth.tokenUrl: must not point to localhost'] },
    });
  });

  it('resolves the token URL’s name with the others when another URL breaks a rule, and names it', async () => {
    resolution.check.mockResolvedValueOnce({ kind: 'invalid', messages: ['auth.tokenUrl: does not resolve'] });
    const pipe = new ReplaceWebhookPipe(resolution as unknown as UrlResolution);
    const body = { name: 'hook', url: 'http://hooks.example.com/', auth: OAUTH };
    expect(await rejectionOf(pipe.transform({ ...request(body), params: {} }))).toEqual({
      status: 400,
      body: { code: 'invalid url', message: ['url: must use https', 'auth.tokenUrl: does not resolve'] },
    });
    expect(resolution.check).toHaveBeenLastCalledWith([{ field: 'auth.tokenUrl', hostname: 'auth.example.com', port: 443 }]);
  });

  it('takes null in a patch (removes it), and replaces it as a whole when given', async () => {
    expect((await patch({ auth: null })).auth).toBeNull();
    expect((await patch({ auth: OAUTH })).auth?.settings).toEqual({ ...OAUTH, tokenUrl: 'https://auth.example.com/token' });
    expect(await patch({})).not.toHaveProperty('auth');
  });

  it('refuses null on create, as every member', async () => {
    expect(await rejectionOf(create(null))).toEqual(badRequest('auth: must be an object'));
  });
});

describe('authorizationProblems (docs/api.md 10.15, 10.16)', () => {
  it('refuses a custom authorization header, in any case, beside oauth2 only', () => {
    expect(authorizationProblems(['X-Key', 'AUTHORIZATION'], 'oauth2')).toEqual([
      'headers: AUTHORIZATION: not allowed beside auth of type oauth2 (the service sends the access token in it)',
    ]);
    expect(authorizationProblems(['Authorization'], 'mtls')).toEqual([]);
    expect(authorizationProblems(['Authorization'], undefined)).toEqual([]);
  });
});

describe('receiverAuthOf', () => {
  it('reads the settings a write sealed, only their type’s members', () => {
    expect(receiverAuthOf({ ...OAUTH, scope: 's', extra: 1 })).toEqual({ ...OAUTH, scope: 's' });
    expect(receiverAuthOf({ type: 'mtls', ...CLIENT })).toEqual({ type: 'mtls', ...CLIENT });
  });

  it.each([
    ['settings of no known type', { type: 'basic', clientSecret: 's3cret' }],
    ['oauth2 without its secret', { ...OAUTH, clientSecret: 5 }],
    ['oauth2 with a scope that is not text', { ...OAUTH, scope: 7 }],
    ['mtls without its key', { type: 'mtls', certificate: CLIENT.certificate }],
    ['null', null],
  ])('finds no settings in %s', (_, value) => {
    expect(receiverAuthOf(value)).toBeUndefined();
  });
});
