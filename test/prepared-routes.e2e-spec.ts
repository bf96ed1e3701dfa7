import type { Response } from 'supertest';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { GracefulShutdown } from '../src/http/graceful-shutdown';
import { describeEachDatabase } from './support/databases';
import { SESSION_COOKIE, TestApp } from './support/test-app';

/*
 * Plain GETs of Nest's routes are served from a prepared table, without Express's router
 * (src/http/prepared-routes.ts). Every answer must be the one Express would give: the same
 * request with a query string (which the handlers ignore, and the prepared table leaves to Express) must
 * get the same status, body and headers, and the same request log line.
 */

/** Headers that differ between any two answers. */
const VARYING = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);
const stableHeaders = (res: Response) => Object.fromEntries(Object.entries(res.headers).filter(([name]) => !VARYING.has(name)));

describeEachDatabase('prepared GET routes', (kind) => {
  let t: TestApp;
  /** Express's entry point for a request (not in its public types). */
  let express: { handle(...args: unknown[]): void };
  const expressCalls = () => vi.mocked(express.handle).mock.calls.length;

  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: { 'hooks.example.com': { A: ['93.184.215.14'] } } });
    express = t.app.getHttpAdapter().getInstance() as unknown as typeof express;
    vi.spyOn(express, 'handle');
  });
  afterAll(() => t?.close());

  /** The request log line of an answer. */
  const logLine = (res: Response) => {
    const line = t.logs.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.requestId === res.headers['x-request-id']);
    expect(line, 'a request log line').toBeDefined();
    const { method, route, path, status, msg } = line!;
    return { method, route, path, status, msg };
  };

  /** Sends `path` as is and with a query string; expects Express to serve only the second, and both answers equal. */
  async function expectSameAnswer(path: string, headers: Record<string, string>, expected: { status: number; body?: unknown }): Promise<void> {
    const send = (target: string) => {
      const test = t.http().get(target);
      for (const [name, value] of Object.entries(headers)) test.set(name, value);
      return test;
    };
    const before = expressCalls();
    const prepared = await send(path);
    expect(expressCalls(), `${path} went through Express's router`).toBe(before);
    const viaExpress = await send(`${path}?via=express`);
    expect(expressCalls(), `${path}?via=express did not go through Express`).toBe(before + 1);

    expect(prepared.status).toBe(expected.status);
    if (expected.body !== undefined) expect(prepared.body).toEqual(expected.body);
    expect({ status: prepared.status, text: prepared.text, headers: stableHeaders(prepared) }).toEqual({
      status: viaExpress.status,
      text: viaExpress.text,
      headers: stableHeaders(viaExpress),
    });
    expect(logLine(prepared)).toEqual(logLine(viaExpress));
  }

  it('answers GET /api/webhook as Express does', async () => {
    const { cookie } = await t.member('owner');
    expect((await t.http().post('/api/webhook/b').set('Cookie', cookie).send({ url: 'https://hooks.example.com/b' })).status).toBe(201);
    await expectSameAnswer('/api/webhook', { Cookie: cookie }, { status: 200, body: { b: { url: 'https://hooks.example.com/b' } } });
  });

  it('answers GET /api/webhook/{name} as Express does', async () => {
    const { cookie } = await t.member('admin');
    expect((await t.http().post('/api/webhook/one').set('Cookie', cookie).send({ url: 'https://hooks.example.com/1' })).status).toBe(201);
    await expectSameAnswer('/api/webhook/one', { Cookie: cookie }, { status: 200, body: { url: 'https://hooks.example.com/1' } });
  });

  it('answers 404 not found as Express does', async () => {
    const { cookie } = await t.member('owner');
    await expectSameAnswer('/api/webhook/missing', { Cookie: cookie }, { status: 404, body: { code: 'not found' } });
  });

  it('answers 400 invalid name (a pipe) as Express does', async () => {
    const { cookie } = await t.member('owner');
    await expectSameAnswer('/api/webhook/Upper', { Cookie: cookie }, { status: 400 });
  });

  it('answers 401 unauthorized (the guard) as Express does', async () => {
    await expectSameAnswer('/api/webhook', {}, { status: 401, body: { code: 'unauthorized' } });
  });

  it('answers 403 no permission as Express does', async () => {
    const { cookie } = await t.member('member');
    await expectSameAnswer('/api/webhook', { Cookie: cookie }, { status: 403, body: { code: 'no permission' } });
  });

  it('answers card provisioning as Express does, no-store included', async () => {
    const { token } = await t.cardHolder({ provisioningId: 'prov-1', provisioningSecret: 'pss-1' });
    await expectSameAnswer('/api/card/provisioning', { Authorization: `Bearer ${token}` }, { status: 200, body: { id: 'prov-1', secret: 'pss-1' } });
  });

  it('answers card provisioning with a cookie beside the bearer 401 as Express does', async () => {
    await expectSameAnswer('/api/card/provisioning', { Authorization: `Bearer ${'a'.repeat(43)}`, Cookie: `${SESSION_COOKIE}=x` }, { status: 401 });
  });

  it('answers GET /health as Express does', async () => {
    await expectSameAnswer('/health', {}, { status: 200 });
  });

  it('leaves HEAD to Express, which answers it like the GET without a body', async () => {
    const { cookie } = await t.member('owner');
    const before = expressCalls();
    const res = await t.http().head('/api/webhook').set('Cookie', cookie);
    expect(expressCalls()).toBe(before + 1);
    expect(res.status).toBe(200);
    expect(res.text ?? '').toBe('');
  });

  // Last: it puts the application into shutdown.
  it('answers a request arriving after SIGTERM 503 unavailable, as Express does (an error from the middleware)', async () => {
    const { cookie } = await t.member('owner');
    t.app.get(GracefulShutdown).beforeApplicationShutdown();
    await expectSameAnswer('/api/webhook', { Cookie: cookie }, { status: 503, body: { code: 'unavailable' } });
  });
});
