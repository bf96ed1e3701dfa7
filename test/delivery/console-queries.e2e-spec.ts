import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestApp } from '../support/test-app';

/*
 * The console's query strings and delivery ids through their pipes (docs/api.md 10.7, 10.9), as
 * the client sees them: every problem of a query in one 400 `bad request` naming its parameters,
 * parameters the lists do not read ignored, an id that is no positive integer 404, and an invalid
 * webhook name answered before any of them. Pipes answer before any database work: SQLite only.
 */

describe('console query strings and ids [sqlite]', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await TestApp.start('sqlite', { zone: { 'hooks.example.com': { A: ['93.184.215.14'] } }, env: { DELIVERY_CONCURRENCY: '0' } });
    ({ cookie } = await t.member('owner'));
    await t.http().post('/api/webhook/listed').set('Cookie', cookie).send({ url: 'https://hooks.example.com/in' }).expect(201);
  });
  afterAll(() => t?.close());

  const answer = async (method: 'get' | 'post', path: string) => {
    const res = await t.http()[method](path).set('Cookie', cookie);
    return { status: res.status, body: res.body as unknown };
  };
  const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
  const LIMIT_RULE = 'limit: must be a whole number from 1 to 100';
  const STATE_RULE = 'state: must be one of pending, succeeded, failed, cancelled';
  const INVALID_NAME = { status: 400, body: { code: 'invalid name', message: ['name: must match ^[a-z0-9-]{1,64}$'] } };
  const NOT_FOUND = { status: 404, body: { code: 'not found' } };

  it.each([
    ['/api/webhook/listed/deliveries', '?limit=0&state=lost', badRequest(LIMIT_RULE, STATE_RULE)],
    [
      '/api/webhook/listed/deliveries',
      '?limit=1&limit=2&state=a&state=b',
      badRequest('limit: must be given once', 'state: must be given once'),
    ],
    ['/api/webhook/listed/deliveries', '?cursor=a&cursor=b', badRequest('cursor: must be given once')],
    ['/api/webhook/listed/deliveries', '?limit=1e1', badRequest(LIMIT_RULE)],
    ['/api/webhook/listed/deliveries', '?state=', badRequest(STATE_RULE)],
    ['/api/audit', '?limit=101', badRequest(LIMIT_RULE)],
    ['/api/audit', '?limit=1&limit=2', badRequest('limit: must be given once')],
  ])('answers %s%s with every problem named', async (path, query, expected) => {
    expect(await answer('get', `${path}${query}`)).toEqual(expected);
  });

  it.each([
    ['/api/webhook/listed/deliveries', '?limit=007&foo=1&foo=2&_=123'],
    ['/api/audit', '?limit=007&state=lost&foo=1'],
  ])('ignores the parameters %s does not read', async (path, query) => {
    expect(await answer('get', `${path}${query}`)).toMatchObject({ status: 200, body: { data: expect.any(Array), next: null } });
  });

  it('checks the query before it looks for the webhook', async () => {
    expect(await answer('get', '/api/webhook/unknown/deliveries?limit=0')).toEqual(badRequest(LIMIT_RULE));
    expect(await answer('get', '/api/webhook/unknown/deliveries?limit=1')).toEqual(NOT_FOUND);
  });

  it.each(['0', '01', '-1', '1.0', 'abc', '1'.repeat(17)])('answers the delivery id %s 404 not found, read or retried', async (id) => {
    expect(await answer('get', `/api/webhook/listed/deliveries/${id}`)).toEqual(NOT_FOUND);
    expect(await answer('post', `/api/webhook/listed/deliveries/${id}/retry`)).toEqual(NOT_FOUND);
  });

  it('answers an invalid name before a bad query or id', async () => {
    expect(await answer('get', '/api/webhook/Bad_Name/deliveries?limit=0&state=lost')).toEqual(INVALID_NAME);
    expect(await answer('get', '/api/webhook/Bad_Name/deliveries/abc')).toEqual(INVALID_NAME);
    expect(await answer('post', '/api/webhook/Bad_Name/deliveries/0/retry')).toEqual(INVALID_NAME);
  });
});
