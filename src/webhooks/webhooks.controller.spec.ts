import { actorOf } from '../common/actor';
import { afterAll, beforeAll, beforeEach, describe, expect, it, type Mocked, vi } from 'vitest';
import type { Test } from 'supertest';
import { ALLOWED_ORIGIN, ControllerContext, controllerSetup, OWNER } from '../../test/support/unit/controller-setup';
import { Errors } from '../common/domain-error';
import { WebhooksController } from './webhooks.controller';
import { WebhooksService } from './webhooks.service';

/*
 * The order of checks of every webhook route (docs/api.md 4, 5: authentication and the Origin
 * rule, the rate limit, then the name, the shape, the URL rules), through the real guards and pipes
 * with the service mocked: what reaches the service, and what never does.
 */

const NAME_RULE = 'name: must match ^[a-z0-9-]{1,64}$';
const HOOK = 'https://hooks.example.com/in';
const DRAFT = { url: { href: HOOK, hostname: 'hooks.example.com' }, events: {} };

const invalidName = (...message: string[]) => ({ status: 400, body: { code: 'invalid name', message } });
const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const invalidUrl = (...message: string[]) => ({ status: 400, body: { code: 'invalid url', message } });

describe('WebhooksController', () => {
  let app: ControllerContext;
  let webhooks: Mocked<WebhooksService>;
  beforeAll(async () => {
    app = await controllerSetup([WebhooksController]);
    webhooks = app.get(WebhooksService);
  });
  afterAll(() => app.close());
  beforeEach(() => vi.resetAllMocks());

  const answer = async (sent: Test) => {
    const { status, body } = await sent;
    return { status, body: body as unknown };
  };
  /** Nothing reached the service. */
  const untouched = () => expect(Object.values(webhooks).filter((method) => method.mock.calls.length > 0)).toEqual([]);

  describe('before any validation', () => {
    it('answers what authentication answers (401, 403) before looking at the name or the body', async () => {
      app.authenticator.session.mockRejectedValueOnce(Errors.unauthorized()).mockRejectedValueOnce(Errors.noPermission());
      expect(await answer(app.http().post('/webhook/BAD').send({ url: 5 }))).toEqual({ status: 401, body: { code: 'unauthorized' } });
      expect(await answer(app.http().post('/webhook/BAD').send({ url: 5 }))).toEqual({ status: 403, body: { code: 'no permission' } });
      untouched();
    });

    it('asks for an owner or an admin of the organization, by the session cookie', async () => {
      await app.http().get('/webhook').set('Cookie', 'a=b');
      expect(app.authenticator.session).toHaveBeenCalledWith(expect.objectContaining({ cookie: 'a=b' }), ['owner', 'admin']);
    });

    it('refuses a write from an origin not allowed with 403 forbidden origin, before authentication', async () => {
      const sent = app.http().delete('/webhook/BAD').set('Origin', 'https://evil.example');
      expect(await answer(sent)).toEqual({ status: 403, body: { code: 'forbidden origin' } });
      expect(app.authenticator.session).not.toHaveBeenCalled();
    });

    it('takes a write from the allowed origin, and a read from any', async () => {
      expect((await app.http().delete('/webhook/w').set('Origin', ALLOWED_ORIGIN)).status).toBe(200);
      expect((await app.http().get('/webhook/w').set('Origin', 'https://evil.example')).status).toBe(200);
    });

    it('answers 429 rate limited, past the session limit, before looking at the name', async () => {
      app.throttle.increment.mockResolvedValueOnce({ totalHits: 101, timeToExpire: 60_000, isBlocked: true, timeToBlockExpire: 30 });
      const res = await app.http().get('/webhook/BAD');
      expect({ status: res.status, body: res.body as unknown, retryAfter: res.headers['retry-after'] }).toEqual({
        status: 429,
        body: { code: 'rate limited' },
        retryAfter: '30',
      });
    });
  });

  describe('POST /webhook/{name}: the path name, the body name, the shape, the URLs', () => {
    it.each([
      [
        'the path name before the body',
        '/webhook/BAD',
        { name: 'ALSO BAD', url: 'http://hooks.example.com/', bogus: 1 },
        invalidName(NAME_RULE),
      ],
      ['the body name before the shape', '/webhook/w', { name: 'BAD', url: 'http://hooks.example.com/', bogus: 1 }, invalidName(NAME_RULE)],
      ['the shape before the URLs', '/webhook/w', { url: 'http://hooks.example.com/', bogus: 1 }, badRequest('bogus: unknown member')],
      ['the URLs last', '/webhook/w', { url: 'http://hooks.example.com/' }, invalidUrl('url: must use https')],
    ])('answers %s', async (_, path, body, expected) => {
      expect(await answer(app.http().post(path).send(body))).toEqual(expected);
      untouched();
    });

    it('creates under the path name, a valid body name losing to it, and answers 201 with what the service returns', async () => {
      webhooks.create.mockResolvedValueOnce({ name: 'w', url: HOOK, secret: 'whsec_x' });
      expect(await answer(app.http().post('/webhook/w').send({ name: 'other', url: HOOK }))).toEqual({
        status: 201,
        body: { name: 'w', url: HOOK, secret: 'whsec_x' },
      });
      expect(webhooks.create).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w', DRAFT);
    });
  });

  describe('POST /webhook (legacy create-or-update): the body name, the shape, the URLs', () => {
    it.each([
      ['a missing name before the shape', { url: 5 }, invalidName('name: is required')],
      ['a name off the pattern before the shape', { name: 'BAD', url: 5 }, invalidName(NAME_RULE)],
      ['the shape before the URLs', { name: 'w', url: 'http://hooks.example.com/', bogus: 1 }, badRequest('bogus: unknown member')],
      ['the URLs last', { name: 'w', url: 'http://hooks.example.com/' }, invalidUrl('url: must use https')],
    ])('answers %s', async (_, body, expected) => {
      expect(await answer(app.http().post('/webhook').send(body))).toEqual(expected);
      untouched();
    });

    it('creates or replaces the named webhook and answers 200', async () => {
      expect((await app.http().post('/webhook').send({ name: 'w', url: HOOK })).status).toBe(200);
      expect(webhooks.replace).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w', DRAFT);
    });
  });

  describe('PATCH /webhook/{name}: the path name, the patch, the URLs', () => {
    it.each([
      ['the path name before the patch', '/webhook/BAD', { name: 'x', url: 5 }, invalidName(NAME_RULE)],
      [
        'the patch before the URLs (a name is no member of it)',
        '/webhook/w',
        { name: 'w', url: 'http://hooks.example.com/' },
        badRequest('name: unknown member'),
      ],
      ['the URLs last', '/webhook/w', { url: 'http://hooks.example.com/' }, invalidUrl('url: must use https')],
    ])('answers %s', async (_, path, body, expected) => {
      expect(await answer(app.http().patch(path).send(body))).toEqual(expected);
      untouched();
    });

    it('hands the service the name and the patch', async () => {
      expect((await app.http().patch('/webhook/w').send({ url: HOOK, card: null })).status).toBe(200);
      expect(webhooks.update).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w', {
        url: DRAFT.url,
        events: { 'card.updated': null },
      });
    });
  });

  describe('POST /webhook/{name}/secret/rotate: the path name, the body', () => {
    it('answers the path name before the body', async () => {
      expect(await answer(app.http().post('/webhook/BAD/secret/rotate').send({ graceSeconds: -1 }))).toEqual(invalidName(NAME_RULE));
      untouched();
    });

    it('answers a bad grace period 400 bad request', async () => {
      expect(await answer(app.http().post('/webhook/w/secret/rotate').send({ graceSeconds: -1 }))).toEqual(
        badRequest('graceSeconds: must be from 0 to 604800'),
      );
      untouched();
    });

    it('rotates with a day of grace when no body is sent', async () => {
      expect((await app.http().post('/webhook/w/secret/rotate')).status).toBe(200);
      expect(webhooks.rotateSecret).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w', 86_400);
    });
  });

  describe('the routes that take only a name', () => {
    it.each([
      ['GET /webhook/{name}', () => app.http().get('/webhook/BAD')],
      ['DELETE /webhook/{name}', () => app.http().delete('/webhook/BAD')],
      ['DELETE /webhook (the body name)', () => app.http().delete('/webhook').send({ name: 'BAD' })],
    ])('answers %s 400 invalid name off the pattern', async (_, send) => {
      expect(await answer(send())).toEqual(invalidName(NAME_RULE));
      untouched();
    });

    it('reads the named webhook', async () => {
      webhooks.get.mockResolvedValueOnce({ url: HOOK });
      expect(await answer(app.http().get('/webhook/w'))).toEqual({ status: 200, body: { url: HOOK } });
      expect(webhooks.get).toHaveBeenCalledWith(OWNER.organizationId, 'w');
    });

    it('deletes the named webhook, from the path or the legacy body, and answers {"code":"ok"}', async () => {
      expect(await answer(app.http().delete('/webhook/w'))).toEqual({ status: 200, body: { code: 'ok' } });
      expect(await answer(app.http().delete('/webhook').send({ name: 'v' }))).toEqual({ status: 200, body: { code: 'ok' } });
      expect(webhooks.remove).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w');
      expect(webhooks.removeIfExists).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'v');
    });
  });

  it('lists the webhooks as the JSON text the service writes', async () => {
    webhooks.listJson.mockResolvedValueOnce('{"w":{"url":"https://hooks.example.com/in"}}');
    const res = await app.http().get('/webhook');
    expect({ status: res.status, type: res.headers['content-type'], body: res.body as unknown }).toEqual({
      status: 200,
      type: 'application/json; charset=utf-8',
      body: { w: { url: HOOK } },
    });
  });
});
