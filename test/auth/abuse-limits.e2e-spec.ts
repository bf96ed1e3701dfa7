import type { AddressInfo } from 'node:net';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/databases';
import { RawAnswer, rawExchange } from '../support/raw-http';
import { expectRateLimited, PER_ORGANIZATION, PER_SESSION, RATE_ENV, WINDOW_SECONDS } from '../support/rate-limits';
import { TestApp } from '../support/test-app';

/*
 * The abuse limits of the webhook API: rate limits per session and per organization (in
 * memory here; across instances through Redis in redis-rate-limit.e2e-spec.ts), the Origin
 * rule for state-changing requests, helmet's security headers with `Cache-Control: no-store`,
 * and the HTTP server's own limits (header size, request timeout, malformed requests).
 */

const HOST = 'hooks.example.com';
const ZONE = { [HOST]: { A: ['93.184.215.14'] } };
const URL_A = `https://${HOST}/a`;
const URL_B = `https://${HOST}/b`;
const URL_C = `https://${HOST}/c`;

const WEBHOOKS = '/api/webhook';
const PROVISIONING = '/api/card/provisioning';

/** Status and exact body of an answer. */
const answer = (res: Response) => ({ status: res.status, body: res.body as unknown });

// ---------------------------------------------------------------------------------------------
// Rate limits (in memory)
// ---------------------------------------------------------------------------------------------

describeEachDatabase('webhook rate limits in memory', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: ZONE, env: RATE_ENV });
  });
  afterAll(() => t.close());

  const list = (cookie: string) => t.http().get(WEBHOOKS).set('Cookie', cookie);

  /** `n` list requests of one session, each of which must be served. */
  async function spend(cookie: string, n: number): Promise<void> {
    for (let i = 0; i < n; i++) expect(answer(await list(cookie))).toEqual({ status: 200, body: {} });
  }

  it('answers the request past the session limit with 429 rate limited and a Retry-After within the window', async () => {
    const { cookie } = await t.member('owner');
    await spend(cookie, PER_SESSION);
    expectRateLimited(await list(cookie), WINDOW_SECONDS);
  });

  it('keeps a limited session limited for the rest of the window', async () => {
    const { cookie } = await t.member('owner');
    await spend(cookie, PER_SESSION);
    expectRateLimited(await list(cookie), WINDOW_SECONDS);
    expectRateLimited(await list(cookie), WINDOW_SECONDS);
  });

  it("counts the requests of every session of an organization against the organization's limit", async () => {
    const first = await t.member('owner');
    const second = await t.member('admin', first.organizationId);
    await spend(first.cookie, PER_SESSION);
    await spend(second.cookie, PER_ORGANIZATION - PER_SESSION);
    // The organization's 6th request: the second session has made only 3 (its own limit).
    expectRateLimited(await list(second.cookie), WINDOW_SECONDS);
    // A session of the organization that has made no request at all is limited too.
    const third = await t.member('owner', first.organizationId);
    expectRateLimited(await list(third.cookie), WINDOW_SECONDS);
  });

  it('leaves another organization unaffected when one organization is limited', async () => {
    const first = await t.member('owner');
    const second = await t.member('owner', first.organizationId);
    await spend(first.cookie, PER_SESSION);
    await spend(second.cookie, PER_ORGANIZATION - PER_SESSION);
    expectRateLimited(await list(second.cookie), WINDOW_SECONDS);
    const other = await t.member('owner');
    await spend(other.cookie, PER_SESSION);
  });

  it('counts one budget across every webhook route, and a refused request changes nothing', async () => {
    const { cookie, organizationId } = await t.member('owner');
    const send = (method: 'post' | 'patch' | 'delete', path: string, body: object) =>
      t.http()[method](path).set('Cookie', cookie).send(body);
    // Three different routes spend the session's budget...
    expect(answer(await send('post', `${WEBHOOKS}/hook`, { url: URL_A }))).toMatchObject({ status: 201 });
    expect(answer(await t.http().get(`${WEBHOOKS}/hook`).set('Cookie', cookie))).toEqual({ status: 200, body: { url: URL_A } });
    expect(answer(await send('patch', `${WEBHOOKS}/hook`, { url: URL_B }))).toEqual({ status: 200, body: { name: 'hook', url: URL_B } });
    // ...and every route, read or write, path or legacy, is then refused.
    expectRateLimited(await send('delete', `${WEBHOOKS}/hook`, {}), WINDOW_SECONDS);
    expectRateLimited(await list(cookie), WINDOW_SECONDS);
    expectRateLimited(await t.http().get(`${WEBHOOKS}/hook`).set('Cookie', cookie), WINDOW_SECONDS);
    expectRateLimited(await send('post', `${WEBHOOKS}/other`, { url: URL_C }), WINDOW_SECONDS);
    expectRateLimited(await send('post', WEBHOOKS, { name: 'hook', url: URL_C }), WINDOW_SECONDS);
    expectRateLimited(await send('patch', `${WEBHOOKS}/hook`, { url: URL_C }), WINDOW_SECONDS);
    expectRateLimited(await send('delete', WEBHOOKS, { name: 'hook' }), WINDOW_SECONDS);
    // The organization's 4th request (under its limit of 5) sees the state the refused writes left.
    const colleague = await t.member('owner', organizationId);
    expect(answer(await list(colleague.cookie))).toEqual({ status: 200, body: { hook: { url: URL_B } } });
  });

  it('does not count requests refused with 401: authentication runs first', async () => {
    for (let i = 0; i < PER_ORGANIZATION + 2; i++) {
      expect(answer(await t.http().get(WEBHOOKS))).toEqual({ status: 401, body: { code: 'unauthorized' } });
    }
  });

  it("does not count requests refused with 403 against the organization's budget", async () => {
    const reader = await t.member('member');
    for (let i = 0; i < PER_ORGANIZATION + 1; i++) {
      expect(answer(await list(reader.cookie))).toEqual({ status: 403, body: { code: 'no permission' } });
    }
    const first = await t.member('owner', reader.organizationId);
    const second = await t.member('owner', reader.organizationId);
    await spend(first.cookie, PER_SESSION);
    await spend(second.cookie, PER_ORGANIZATION - PER_SESSION);
  });

  it('does not count card provisioning against the webhook limits (it has its own, per wallet token)', async () => {
    const { userId } = await t.member('owner');
    const { token } = await t.identity.createWalletToken(userId, 3600);
    for (let i = 0; i < PER_ORGANIZATION + 2; i++) {
      const res = await t.http().get(PROVISIONING).set('Authorization', `Bearer ${token}`);
      expect(answer(res)).toEqual({ status: 404, body: { code: 'no card' } });
    }
  });

  it('does not rate limit /health', async () => {
    for (let i = 0; i < PER_ORGANIZATION + 2; i++) {
      expect(answer(await t.http().get('/health'))).toMatchObject({ status: 200, body: { status: 'ok' } });
    }
  });

  describe('with a window of 1 second', () => {
    let short: TestApp;
    beforeAll(async () => {
      short = await TestApp.start(kind, { env: { ...RATE_ENV, RATE_LIMIT_WINDOW_SECONDS: '1' } });
    });
    afterAll(() => short.close());

    it("resets a session's counter once the window has passed", async () => {
      const { cookie } = await short.member('owner');
      for (let i = 0; i < PER_SESSION; i++) expect((await short.http().get(WEBHOOKS).set('Cookie', cookie)).status).toBe(200);
      const limited = await short.http().get(WEBHOOKS).set('Cookie', cookie);
      expectRateLimited(limited, 1);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect(answer(await short.http().get(WEBHOOKS).set('Cookie', cookie))).toEqual({ status: 200, body: {} });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The Origin rule
// ---------------------------------------------------------------------------------------------

const ALLOWED = 'https://app.example';
const ALLOWED_DEV = 'http://localhost:5173';
const FOREIGN = 'https://evil.example';

interface Write {
  title: string;
  method: 'post' | 'patch' | 'delete';
  path: string;
  body: object;
  /** Status when the write is served, and the webhooks it leaves (`keep` starts at URL_A). */
  served: number;
  after: Record<string, { url: string }>;
}

/** Every state-changing webhook operation, each against a stored webhook `keep`. */
const WRITES: Write[] = [
  {
    title: 'POST /webhook/{name}',
    method: 'post',
    path: `${WEBHOOKS}/fresh`,
    body: { url: URL_B },
    served: 201,
    after: { fresh: { url: URL_B }, keep: { url: URL_A } },
  },
  {
    title: 'POST /webhook (legacy)',
    method: 'post',
    path: WEBHOOKS,
    body: { name: 'keep', url: URL_B },
    served: 200,
    after: { keep: { url: URL_B } },
  },
  {
    title: 'PATCH /webhook/{name}',
    method: 'patch',
    path: `${WEBHOOKS}/keep`,
    body: { url: URL_B },
    served: 200,
    after: { keep: { url: URL_B } },
  },
  { title: 'DELETE /webhook/{name}', method: 'delete', path: `${WEBHOOKS}/keep`, body: {}, served: 200, after: {} },
  { title: 'DELETE /webhook (legacy)', method: 'delete', path: WEBHOOKS, body: { name: 'keep' }, served: 200, after: {} },
];

const FORBIDDEN_ORIGIN = { status: 403, body: { code: 'forbidden origin' } };

describeEachDatabase('Origin rule for state-changing webhook requests', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: ZONE, env: { ALLOWED_ORIGINS: `${ALLOWED}, ${ALLOWED_DEV}` } });
  });
  afterAll(() => t.close());

  /** An owner of a new organization whose only webhook is `keep` (URL_A). */
  async function ownerWithWebhook(): Promise<string> {
    const { cookie } = await t.member('owner');
    expect((await t.http().post(`${WEBHOOKS}/keep`).set('Cookie', cookie).send({ url: URL_A })).status).toBe(201);
    return cookie;
  }

  const stored = async (cookie: string) => answer(await t.http().get(WEBHOOKS).set('Cookie', cookie));

  const sendWrite = (write: Write, cookie: string, origin?: string) => {
    const req = t.http()[write.method](write.path).set('Cookie', cookie);
    if (origin !== undefined) req.set('Origin', origin);
    return req.send(write.body);
  };

  describe.each(WRITES)('$title', (write) => {
    it('refuses a foreign Origin with 403 forbidden origin and changes nothing', async () => {
      const cookie = await ownerWithWebhook();
      expect(answer(await sendWrite(write, cookie, FOREIGN))).toEqual(FORBIDDEN_ORIGIN);
      expect(await stored(cookie)).toEqual({ status: 200, body: { keep: { url: URL_A } } });
    });

    it('serves an Origin listed in ALLOWED_ORIGINS', async () => {
      const cookie = await ownerWithWebhook();
      expect((await sendWrite(write, cookie, ALLOWED)).status).toBe(write.served);
      expect(await stored(cookie)).toEqual({ status: 200, body: write.after });
    });

    it('serves a request without an Origin header (server-to-server callers)', async () => {
      const cookie = await ownerWithWebhook();
      expect((await sendWrite(write, cookie)).status).toBe(write.served);
      expect(await stored(cookie)).toEqual({ status: 200, body: write.after });
    });

    it('refuses a foreign Origin before authentication (no cookie)', async () => {
      const res = await t.http()[write.method](write.path).set('Origin', FOREIGN).send(write.body);
      expect(answer(res)).toEqual(FORBIDDEN_ORIGIN);
    });
  });

  it('serves every origin of the ALLOWED_ORIGINS list, not only the first', async () => {
    const cookie = await ownerWithWebhook();
    const res = await t.http().patch(`${WEBHOOKS}/keep`).set('Cookie', cookie).set('Origin', ALLOWED_DEV).send({ url: URL_C });
    expect(answer(res)).toEqual({ status: 200, body: { name: 'keep', url: URL_C } });
  });

  it('refuses Origin: null (sandboxed frames, file: pages, some redirects)', async () => {
    const cookie = await ownerWithWebhook();
    const res = await t.http().delete(`${WEBHOOKS}/keep`).set('Cookie', cookie).set('Origin', 'null');
    expect(answer(res)).toEqual(FORBIDDEN_ORIGIN);
    expect(await stored(cookie)).toEqual({ status: 200, body: { keep: { url: URL_A } } });
  });

  it.each([
    'http://app.example',
    'https://app.example:8443',
    'https://sub.app.example',
    'http://localhost:5174',
    'https://app.example.evil.example',
  ])('refuses %s, which differs from a listed origin', async (origin) => {
    const cookie = await ownerWithWebhook();
    const res = await t.http().patch(`${WEBHOOKS}/keep`).set('Cookie', cookie).set('Origin', origin).send({ url: URL_B });
    expect(answer(res)).toEqual(FORBIDDEN_ORIGIN);
  });

  it('serves reads with a foreign Origin (they change nothing)', async () => {
    const cookie = await ownerWithWebhook();
    expect(answer(await t.http().get(WEBHOOKS).set('Cookie', cookie).set('Origin', FOREIGN))).toEqual({
      status: 200,
      body: { keep: { url: URL_A } },
    });
    expect(answer(await t.http().get(`${WEBHOOKS}/keep`).set('Cookie', cookie).set('Origin', FOREIGN))).toEqual({
      status: 200,
      body: { url: URL_A },
    });
  });
});

// ---------------------------------------------------------------------------------------------
// helmet and Cache-Control
// ---------------------------------------------------------------------------------------------

describe('security headers', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await TestApp.start('sqlite', { zone: ZONE });
    ({ cookie } = await t.member('owner'));
  });
  afterAll(() => t.close());

  /** One answer of each kind the service gives: success, client errors, operations, docs. */
  const ANSWERS: [string, () => Promise<Response>][] = [
    ['200 webhook list', () => t.http().get(WEBHOOKS).set('Cookie', cookie)],
    ['201 webhook create', () => t.http().post(`${WEBHOOKS}/h${Date.now()}`).set('Cookie', cookie).send({ url: URL_A })],
    ['401 unauthorized', () => t.http().get(WEBHOOKS)],
    ['404 unknown route', () => t.http().get('/api/nothing-here')],
    ['405 method not allowed', () => t.http().put(WEBHOOKS).set('Cookie', cookie).send({})],
    ['415 unsupported media type', () => t.http().post(`${WEBHOOKS}/x`).set('Cookie', cookie).set('Content-Type', 'text/plain').send('x')],
    ['400 malformed JSON', () => t.http().post(`${WEBHOOKS}/x`).set('Cookie', cookie).set('Content-Type', 'application/json').send('{')],
    ['401 card provisioning', () => t.http().get(PROVISIONING)],
    ['200 /health', () => t.http().get('/health')],
    ['200 /docs/openapi.json', () => t.http().get('/docs/openapi.json')],
    ['200 /docs', () => t.http().get('/docs')],
  ];

  it.each(ANSWERS)('%s carries helmet headers', async (_title, send) => {
    const res = await send();
    expect(res.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'same-origin',
      'referrer-policy': 'no-referrer',
    });
    expect(res.headers['strict-transport-security']).toMatch(/^max-age=[1-9]\d*/);
    expect(res.headers['x-frame-options'] ?? '').toMatch(/^(DENY|SAMEORIGIN)$/);
    expect(res.headers['content-security-policy']).toMatch(/(^|;)\s*frame-ancestors '(self|none)'/);
  });

  it.each(ANSWERS)('%s has no X-Powered-By', async (_title, send) => {
    expect((await send()).headers['x-powered-by']).toBeUndefined();
  });

  it.each(ANSWERS)('%s carries Cache-Control: no-store', async (_title, send) => {
    expect((await send()).headers['cache-control']).toBe('no-store');
  });

  it('serves the Swagger UI at /docs as HTML whose scripts the CSP allows (same origin, none inline)', async () => {
    const res = await t.http().get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html\b/);
    expect(res.headers['content-security-policy']).toMatch(/(^|;)\s*script-src 'self'(;|$)/);
    const scripts = [...res.text.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, content] of scripts) {
      expect(content.trim()).toBe('');
      const src = /\bsrc=["']([^"']+)["']/.exec(attributes)?.[1];
      expect(src).toBeDefined();
      expect(src).not.toMatch(/^(https?:)?\/\//);
      // Resolved against the page's own URL, as a browser does.
      const script = await t.http().get(new URL(src!, 'http://127.0.0.1/docs').pathname);
      expect({ src, status: script.status }).toEqual({ src, status: 200 });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The HTTP server's limits, over raw sockets
// ---------------------------------------------------------------------------------------------

/** A JSON `{code}` error answer, never cached, and the connection closed. */
function expectRawError(res: RawAnswer, status: number, code: string): void {
  expect({
    status: res.status,
    body: res.body === '' ? undefined : (JSON.parse(res.body) as unknown),
    closedByServer: res.closedByServer,
  }).toEqual({
    status,
    body: { code },
    closedByServer: true,
  });
  expect(res.headers['content-type']).toMatch(/^application\/json\b/);
  expect(res.headers['cache-control']).toBe('no-store');
}

describe('HTTP server limits (raw connections)', () => {
  const REQUEST_TIMEOUT_MS = 1000;
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await TestApp.start('sqlite', { env: { REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /** A GET /health whose header block (request line to the blank line) is exactly `size` bytes. */
  function getWithHeaderBlockOf(size: number): string {
    const start = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Padding: ';
    const end = '\r\n\r\n';
    return `${start}${'a'.repeat(size - start.length - end.length)}${end}`;
  }

  it("answers CONNECT, which Node hands past Express, 405 with the path's methods (it closed the connection unanswered)", async () => {
    const res = await rawExchange(port, 'CONNECT /api/webhook/x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expectRawError(res, 405, 'method not allowed');
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH, POST');
  });

  it('answers CONNECT to an address, which no route has, 404 (the service is no proxy)', async () => {
    expectRawError(await rawExchange(port, 'CONNECT 1.1.1.1:443 HTTP/1.1\r\nHost: 1.1.1.1:443\r\n\r\n'), 404, 'not found');
  });

  it('answers a webhook name that does not decode after authentication: 401 without a session, invalid name with one', async () => {
    const get = (path: string, cookie = '') =>
      rawExchange(port, `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${cookie && `Cookie: ${cookie}\r\n`}\r\n`);
    expectRawError(await get('/api/webhook/%ZZ'), 401, 'unauthorized');
    const named = await get('/api/webhook/%E0%A4', (await t.member('owner')).cookie);
    expect({ status: named.status, code: (JSON.parse(named.body) as { code: string }).code }).toEqual({
      status: 400,
      code: 'invalid name',
    });
  });

  it('answers 431 headers too large, as JSON, to request headers over 16 KiB', async () => {
    expectRawError(await rawExchange(port, getWithHeaderBlockOf(16 * 1024 + 512)), 431, 'headers too large');
  });

  it('serves request headers just under 16 KiB', async () => {
    const res = await rawExchange(port, getWithHeaderBlockOf(15 * 1024));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ status: 'ok' });
  });

  it('answers 400 bad request, as JSON, to a malformed request line', async () => {
    expectRawError(await rawExchange(port, 'HELLO THERE\r\n\r\n'), 400, 'bad request');
  });

  it('answers 408 request timeout, as JSON, when a declared body stalls', async () => {
    const { cookie } = await t.member('owner');
    const head =
      `POST ${WEBHOOKS}/stalled HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${cookie}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    const res = await rawExchange(port, `${head}{"url":"https://`);
    expectRawError(res, 408, 'request timeout');
    // REQUEST_TIMEOUT_MS, checked once per second.
    expect(res.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(res.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2500);
  });

  it('answers 408 request timeout, as JSON, when the headers stall', async () => {
    const res = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a');
    expectRawError(res, 408, 'request timeout');
    expect(res.elapsedMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 50);
    expect(res.elapsedMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2500);
  });
});
