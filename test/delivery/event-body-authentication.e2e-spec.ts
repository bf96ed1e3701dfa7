import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * POST {p}/events takes bodies up to 256 KiB (docs/api.md 10.1), and POST {p}/events/batch up to
 * 1 MiB (10.1.1), so their caller is known before a byte of the body is read: an unauthenticated
 * 240 KB body nested 120 000 deep used to be parsed in full before its 401. Now authentication
 * (with the per-address block of the limits around it) comes first, and a refused request's
 * body is never read, let alone parsed.
 */

const DEPTH = 120_000;
/** A body of about 240 KB whose `data` is nested DEPTH deep. */
const DEEP_BODY = `{"type":"user.updated","organization":1,"data":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`;

/** The status of the first answer on a new connection after `data`, without sending anything more. */
function firstStatus(port: number, data: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(data));
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(received);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`closed without an answer: ${JSON.stringify(received)}`)));
  });
}

describeEachDatabase('POST /events authenticates before it reads the body', (kind: DatabaseKind) => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    // A short request timeout: a server that waited for the body would answer 408, not 401.
    t = await TestApp.start(kind, { env: { DELIVERY_CONCURRENCY: '0', REQUEST_TIMEOUT_MS: '3000', RATE_LIMIT_PER_PLATFORM_KEY: '2' } });
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t?.close());
  afterEach(() => vi.restoreAllMocks());

  it('answers an unauthenticated event 401 without waiting for its body', async () => {
    const head =
      `POST /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(DEEP_BODY)}\r\nAuthorization: Bearer ${'A'.repeat(43)}\r\n\r\n`;
    // Only the first 16 KiB of the body is ever sent.
    expect(await firstStatus(port, head + DEEP_BODY.slice(0, 16 * 1024))).toBe(401);
  });

  it.each([
    ['no Authorization', '/api/events', {}],
    ['an unknown platform key', '/api/events', { Authorization: `Bearer ${'A'.repeat(43)}` }],
    ['a session cookie', '/api/events', { Cookie: `__Secure-auth.session_token=${'A'.repeat(43)}` }],
    ['an unknown platform key (a batch, docs/api.md 10.1.1)', '/api/events/batch', { Authorization: `Bearer ${'A'.repeat(43)}` }],
  ])('never parses the deep body of a request with %s', async (_, path, headers) => {
    const parse = vi.spyOn(JSON, 'parse');
    const res = await t.http().post(path).set(headers).set('Content-Type', 'application/json').send(DEEP_BODY);
    expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { code: 'unauthorized' } });
    expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length >= DEEP_BODY.length)).toEqual([]);
  });

  it('still reads and judges the body of a known platform key, counting the key once per request', async () => {
    const { token } = await t.identity.createPlatformKey('platform');
    const { organizationId } = await t.member('owner');
    const send = (body: string) =>
      t.http().post('/api/events').set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send(body);
    const deep = await send(DEEP_BODY);
    expect({ status: deep.status, code: deep.body.code }).toEqual({ status: 400, code: 'bad request' });
    const accepted = await send(
      JSON.stringify({ type: 'user.updated', organization: organizationId, data: { blob: 'x'.repeat(200 * 1024) } }),
    );
    expect(accepted.status).toBe(202);
    // RATE_LIMIT_PER_PLATFORM_KEY is 2: the third request is the one past it.
    const third = await send(JSON.stringify({ type: 'user.updated', organization: organizationId, data: {} }));
    expect(third.status).toBe(429);
  });
});

describeEachDatabase('POST /events: an address blocked for failed authentications', (kind: DatabaseKind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { env: { DELIVERY_CONCURRENCY: '0', RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS: '2' } });
  });
  afterAll(() => t?.close());

  it('is refused with 429 before its credentials are looked up or its body parsed, valid key included', async () => {
    const { token } = await t.identity.createPlatformKey('platform');
    const bogus = () =>
      t
        .http()
        .post('/api/events')
        .set('Authorization', `Bearer ${'B'.repeat(43)}`)
        .send({});
    expect([(await bogus()).status, (await bogus()).status, (await bogus()).status]).toEqual([401, 401, 429]);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const res = await t
        .http()
        .post('/api/events')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send(DEEP_BODY);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 429, code: 'rate limited' });
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      expect(parse.mock.calls.filter(([text]) => typeof text === 'string' && text.length >= DEEP_BODY.length)).toEqual([]);
    } finally {
      parse.mockRestore();
    }
  });
});
