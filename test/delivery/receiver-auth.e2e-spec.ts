import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import type { Response } from 'supertest';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT, CLIENT_CA, EXPIRED_CLIENT, RSA_1024_CLIENT, RSA_CLIENT } from '../support/client-certificates';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS, HOOKS_ZONE, newPath } from '../support/delivery-harness';
import { freePort } from '../support/ports';
import type { TestApp } from '../support/test-app';
import { bearer, startTokenServer, TokenAnswer, TokenServer } from '../support/token-server';
import { startWebhookReceiver, WebhookReceiver } from '../support/webhook-receiver';

/*
 * Receiver authentication (docs/api.md 10.16) end to end: an OAuth 2.0 token endpoint and a
 * receiver that asks for a client certificate, both HTTPS on loopback behind the harness's
 * CONNECT proxy at public addresses of their own, so that every SSRF rule applies to the token
 * request as to an attempt. The secret, the key and the tokens never show in an answer, a log
 * line, an audit entry or a stored byte.
 */

const AUTH_HOST = 'auth.example.com';
const PUBLIC_T = '1.1.1.20';
/** Resolves to an address whose connections are refused: a token endpoint that is down. */
const DOWN_HOST = 'down.example.com';
const PUBLIC_DOWN = '1.1.1.21';
/** The token endpoint under a name the test rebinds to a private address after registration. */
const REBOUND_HOST = 'rebound.example.com';
const MTLS_HOST = 'mtls.example.com';
const PUBLIC_M = '1.1.1.30';
const ZONE = {
  ...HOOKS_ZONE,
  [AUTH_HOST]: { A: [PUBLIC_T] },
  [REBOUND_HOST]: { A: [PUBLIC_T] },
  [DOWN_HOST]: { A: [PUBLIC_DOWN] },
  [MTLS_HOST]: { A: [PUBLIC_M] },
  'private.example.com': { A: ['10.1.2.3'] },
};
const TIMEOUT_MS = 1500;

/** The client secret of every webhook here: it must show nowhere (docs/api.md 10.16). */
const CLIENT_SECRET = 'cl13nt-s3cr3t-never-shown';
/** A line of the private key's base64: the key must show nowhere either. */
const KEY_LINE = CLIENT.privateKey.split('\n')[1];

const oauth = (path: string, host = AUTH_HOST) => ({
  type: 'oauth2',
  tokenUrl: `https://${host}${path}`,
  clientId: 'acme hooks',
  clientSecret: CLIENT_SECRET,
});

/** A port nothing listens on (taken, then released): connections to it are refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface LoggedDelivery {
  state: string;
  attempts: number;
  lastAttempt: { error: string | null; status: number | null; durationMs: number } | null;
}

describeEachDatabase('receiver authentication (docs/api.md 10.16)', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let tokens: TokenServer;
  let mtls: WebhookReceiver;
  /** Every answer the tests got, to look for the secrets in. */
  const answers: string[] = [];
  /** Every batch of spans exported over OTLP, and the port of the metrics: the secrets are looked for there too. */
  const exported: string[] = [];
  let collector: Server;
  let metricsPort: number;

  beforeAll(async () => {
    [tokens, mtls] = await Promise.all([startTokenServer(), startWebhookReceiver({ clientCa: CLIENT_CA })]);
    collector = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => (exported.push(Buffer.concat(chunks).toString()), res.writeHead(200).end('{}')));
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    metricsPort = await freePort();
    h = await DeliveryHarness.start(kind, {
      zone: ZONE,
      env: {
        DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
        METRICS_PORT: String(metricsPort),
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    ({ app: t, receiver } = h);
    h.proxy.route(`${PUBLIC_T}:443`, tokens.port);
    h.proxy.route(`${PUBLIC_M}:443`, mtls.port);
    h.proxy.route(`${PUBLIC_DOWN}:443`, await closedPort());
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([tokens?.close(), mtls?.close(), new Promise((resolve) => collector?.close(resolve))]);
  });

  const kept = (res: Response): Response => (answers.push(res.text), res);
  const write = async (cookie: string, method: 'post' | 'patch', path: string, body: object) =>
    kept(await t.http()[method](`/api${path}`).set('Cookie', cookie).send(body));
  const logOf = async (cookie: string, name: string): Promise<LoggedDelivery[]> =>
    kept(await t.http().get(`/api/webhook/${name}/deliveries`).set('Cookie', cookie)).body.data;
  /** The first attempt of the newest delivery of each webhook, once each has had one. */
  const firstAttempts = async (cookie: string, names: string[]) => {
    const attempts: Record<string, LoggedDelivery['lastAttempt']> = {};
    await expect
      .poll(
        async () => {
          for (const name of names) attempts[name] = (await logOf(cookie, name))[0]?.lastAttempt ?? null;
          return names.filter((name) => attempts[name] === null);
        },
        { timeout: 10_000, interval: 100 },
      )
      .toEqual([]);
    return attempts;
  };
  const bearerOf = (headers: Record<string, string>) => /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];

  describe('the field', () => {
    it('is shown without its secret or key, kept by a legacy create-or-update, replaced by a PATCH, removed by null, and audited', async () => {
      const { cookie } = await h.organizationWith({});
      const url = `https://${HOOKS}/auth`;
      const created = await write(cookie, 'post', '/webhook/guarded', { url, auth: { ...oauth('/t'), scope: 'hooks', audience: 'acme' } });
      const shown = { type: 'oauth2', tokenUrl: `https://${AUTH_HOST}/t`, clientId: 'acme hooks', scope: 'hooks', audience: 'acme' };
      expect(created.status).toBe(201);
      expect(created.body.auth).toEqual(shown);
      expect((await write(cookie, 'post', '/webhook', { name: 'guarded', url })).body.auth).toEqual(shown);
      expect(kept(await t.http().get('/api/webhook').set('Cookie', cookie)).body.guarded.auth).toEqual(shown);

      const patched = await write(cookie, 'patch', '/webhook/guarded', { auth: { type: 'mtls', ...CLIENT } });
      expect(patched.body.auth).toEqual({
        type: 'mtls',
        certificate: {
          subject: 'CN=webhooks.acme.test, O=Acme',
          notAfter: '2125-12-31T00:00:00.000Z',
          sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        },
      });
      expect((await write(cookie, 'patch', '/webhook/guarded', { auth: { type: 'mtls', ...CLIENT } })).status).toBe(200);
      expect((await write(cookie, 'patch', '/webhook/guarded', { auth: null })).body).not.toHaveProperty('auth');
      const audit = kept(await t.http().get('/api/audit').set('Cookie', cookie)).body.data;
      expect(audit.map((entry: { action: string; fields: string[] }) => [entry.action, entry.fields])).toEqual([
        ['webhook.updated', ['auth']],
        ['webhook.updated', []],
        ['webhook.updated', ['auth']],
        ['webhook.updated', []],
        ['webhook.created', ['url', 'auth']],
      ]);
    });

    it('refuses a custom authorization header beside oauth2 (400), on create, legacy create-or-update and PATCH, whichever came first', async () => {
      const { cookie } = await h.organizationWith({ headed: { url: `https://${HOOKS}/h`, headers: { Authorization: 'Basic x' } } });
      const url = `https://${HOOKS}/a`;
      const refusal = {
        code: 'bad request',
        message: [expect.stringMatching(/^headers: authorization: not allowed beside auth of type oauth2/i)],
      };
      const refused = [
        await write(cookie, 'post', '/webhook/both', { url, headers: { authorization: 'k' }, auth: oauth('/t') }),
        await write(cookie, 'post', '/webhook', { name: 'headed', url, auth: oauth('/t') }),
        await write(cookie, 'patch', '/webhook/headed', { auth: oauth('/t') }),
      ];
      expect(refused.map((res) => [res.status, res.body])).toEqual(Array(3).fill([400, refusal]));
      // Dropping the header in the same PATCH makes room for the token.
      expect((await write(cookie, 'patch', '/webhook/headed', { headers: { Authorization: null }, auth: oauth('/t') })).status).toBe(200);
      expect((await write(cookie, 'patch', '/webhook/headed', { headers: { AUTHORIZATION: 'k' } })).status).toBe(400);
    });

    it('refuses a token URL that breaks 5.1 with 400 invalid url naming auth.tokenUrl, and an mTLS key or certificate that will not do with 400 naming it', async () => {
      const { cookie } = await h.organizationWith({});
      const url = `https://${HOOKS}/v`;
      const create = (auth: object) => write(cookie, 'post', '/webhook/checked', { url, auth });
      expect((await create(oauth('/t', 'private.example.com'))).body).toEqual({
        code: 'invalid url',
        message: ['auth.tokenUrl: must not point to a private, loopback or reserved address'],
      });
      expect((await create({ ...oauth('/t'), tokenUrl: `http://${AUTH_HOST}/t` })).body).toEqual({
        code: 'invalid url',
        message: ['auth.tokenUrl: must use https'],
      });
      const refused = [
        await create({ type: 'mtls', certificate: CLIENT.certificate, privateKey: RSA_CLIENT.privateKey }),
        await create({ type: 'mtls', ...EXPIRED_CLIENT }),
        await create({ type: 'mtls', ...RSA_1024_CLIENT }),
      ];
      expect(refused.map((res) => [res.status, res.body])).toEqual([
        [
          400,
          {
            code: 'bad request',
            message: ["auth.privateKey: does not match the certificate (the first of auth.certificate must be this key's)"],
          },
        ],
        [400, { code: 'bad request', message: ['auth.certificate: has expired'] }],
        [400, { code: 'bad request', message: ['auth.privateKey: an RSA key must have 2048 to 4096 bits'] }],
      ]);
    });
  });

  describe('OAuth 2.0 at delivery', () => {
    it('gets a token with the client-credentials grant, sends it as a bearer token, reuses it, and authenticates a test ping the same way', async () => {
      const [path, tokenPath] = [newPath(), newPath()];
      tokens.on(tokenPath, bearer(3600));
      const { organizationId, cookie, secrets } = await h.organizationWith({
        guarded: { url: `https://${HOOKS}${path}`, auth: { ...oauth(tokenPath), scope: 'hooks:write' } },
      });
      await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { n: 1 } });
      await receiver.waitFor(path, 1);
      await h.sendEvent({ type: 'user.updated', organization: organizationId, data: { n: 2 } });
      expect((await t.http().post('/api/webhook/guarded/test').set('Cookie', cookie)).status).toBe(202);
      const requests = await receiver.waitFor(path, 3);

      const [asked] = tokens.requestsTo(tokenPath);
      expect(tokens.requestsTo(tokenPath)).toHaveLength(1);
      expect(asked.form).toEqual({ grant_type: 'client_credentials', scope: 'hooks:write' });
      expect(asked.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(asked.headers.accept).toBe('application/json');
      expect(asked.headers.host).toBe(AUTH_HOST);
      expect(Buffer.from(asked.headers.authorization.replace(/^Basic /, ''), 'base64').toString()).toBe(`acme+hooks:${CLIENT_SECRET}`);
      const sent = requests.map((request) => bearerOf(request.headers));
      expect(new Set(sent).size).toBe(1);
      expect(tokens.issued(sent[0]!)).toBe(true);
      for (const request of requests) expect(new Webhook(secrets.guarded).verify(request.body, request.headers)).toBeTruthy();
      expect(requests.map((request) => JSON.parse(request.body).type).sort()).toEqual(['user.updated', 'user.updated', 'webhook.test']);
    });

    it('fails the attempt auth failed and sends nothing to the receiver when the token request fails, whichever way', async () => {
      const failing: Record<string, { tokenPath: string; host?: string; answer?: TokenAnswer }> = {
        down: { tokenPath: newPath(), host: DOWN_HOST },
        slow: { tokenPath: newPath(), answer: bearer(3600, TIMEOUT_MS + 1000) },
        broken: { tokenPath: newPath(), answer: () => ({ status: 500, body: { error: 'server_error' } }) },
        tokenless: { tokenPath: newPath(), answer: () => ({ status: 200, body: { token_type: 'bearer', expires_in: 60 } }) },
        redirected: { tokenPath: newPath(), answer: () => ({ status: 302, headers: { location: `https://${AUTH_HOST}/elsewhere` } }) },
        rebound: { tokenPath: newPath(), host: REBOUND_HOST },
      };
      const paths = Object.fromEntries(Object.keys(failing).map((name) => [name, newPath()]));
      for (const { tokenPath, answer } of Object.values(failing)) if (answer !== undefined) tokens.on(tokenPath, answer);
      const { organizationId, cookie } = await h.organizationWith(
        Object.fromEntries(
          Object.entries(failing).map(([name, { tokenPath, host }]) => [
            name,
            { url: `https://${HOOKS}${paths[name]}`, auth: oauth(tokenPath, host) },
          ]),
        ),
      );
      // Registered while it resolved to the token server; rebound to a private address since.
      t.dns.set(REBOUND_HOST, { A: ['10.9.8.7'] });
      try {
        await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
        const attempts = await firstAttempts(cookie, Object.keys(failing));
        expect(Object.fromEntries(Object.entries(attempts).map(([name, attempt]) => [name, [attempt!.error, attempt!.status]]))).toEqual({
          down: ['auth failed', null],
          slow: ['auth failed', null],
          broken: ['auth failed', 500],
          tokenless: ['auth failed', 200],
          redirected: ['auth failed', 302],
          rebound: ['auth failed', null],
        });
        // The deadline of the attempt was the token request's.
        expect(attempts.slow!.durationMs).toBeLessThan(TIMEOUT_MS + 500);
      } finally {
        t.dns.set(REBOUND_HOST, { A: [PUBLIC_T] });
      }
      expect(receiver.received.filter((request) => Object.values(paths).includes(request.path))).toEqual([]);
      // No redirect followed; no request to the rebound name's private address.
      expect(tokens.requestsTo('/elsewhere')).toEqual([]);
      expect(tokens.requestsTo(failing.rebound.tokenPath)).toEqual([]);
      expect(h.proxy.requested.filter((target) => target.startsWith('10.'))).toEqual([]);
    });

    it('gives the token request and the attempt one deadline: a slow token leaves the receiver less time', async () => {
      const [path, tokenPath] = [newPath(), newPath()];
      tokens.on(tokenPath, bearer(3600, 900));
      receiver.on(path, { status: 200, delayMs: 900 });
      const { organizationId, cookie } = await h.organizationWith({ late: { url: `https://${HOOKS}${path}`, auth: oauth(tokenPath) } });
      await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
      const { late } = await firstAttempts(cookie, ['late']);
      expect([late!.error, late!.durationMs < TIMEOUT_MS + 500]).toEqual(['timeout', true]);
    });

    it("drops the token on the receiver's 401: the next attempt gets a new one and succeeds", async () => {
      const [path, tokenPath] = [newPath(), newPath()];
      tokens.on(tokenPath, bearer(3600));
      receiver.on(path, { status: 401 });
      const { organizationId } = await h.organizationWith({ refused: { url: `https://${HOOKS}${path}`, auth: oauth(tokenPath) } });
      const { body } = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
      await receiver.waitFor(path, 1);
      receiver.on(path, { status: 204 });
      const [first, second] = await receiver.waitFor(path, 2);
      expect((await h.settled(body.id)).map((row) => [row.state, row.attempts])).toEqual([['succeeded', 2]]);
      expect(tokens.requestsTo(tokenPath)).toHaveLength(2);
      expect(bearerOf(second.headers)).not.toBe(bearerOf(first.headers));
      expect(tokens.issued(bearerOf(second.headers)!)).toBe(true);
    });

    it('makes one token request for 50 attempts at once, on every instance of the database, one per instance', async () => {
      const [path, tokenPath] = [newPath(), newPath()];
      // Slow enough that every attempt started meanwhile waits for the one request.
      tokens.on(tokenPath, bearer(3600, 300));
      const { organizationId } = await h.organizationWith({ busy: { url: `https://${HOOKS}${path}`, auth: oauth(tokenPath) } });
      const other = kind === 'mariadb' ? await h.another() : undefined;
      try {
        const instances = other === undefined ? [t] : [t, other];
        await Promise.all(
          Array.from({ length: 50 }, (_, n) =>
            instances[n % instances.length]
              .http()
              .post('/api/events')
              .set('Authorization', `Bearer ${h.platformKey}`)
              .send({ type: 'user.updated', organization: organizationId, data: { n } })
              .expect(202),
          ),
        );
        const requests = await receiver.waitFor(path, 50);
        expect(tokens.requestsTo(tokenPath).length).toBeLessThanOrEqual(instances.length);
        expect(new Set(requests.map((request) => bearerOf(request.headers))).size).toBe(tokens.requestsTo(tokenPath).length);
        expect(requests.every((request) => tokens.issued(bearerOf(request.headers)!))).toBe(true);
      } finally {
        await other?.close();
      }
    });
  });

  describe('mutual TLS at delivery', () => {
    it('presents the client certificate to a receiver that asks for one; a webhook without one fails tls error, on its own connections; a changed auth presents the new one', async () => {
      const [withCert, without] = [newPath(), newPath()];
      const { organizationId, cookie } = await h.organizationWith({
        certified: { url: `https://${MTLS_HOST}${withCert}`, auth: { type: 'mtls', ...CLIENT }, events: ['user.updated'] },
        plain: { url: `https://${MTLS_HOST}${without}`, events: ['card.updated'] },
      });
      await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
      const [presented] = await mtls.waitFor(withCert, 1);
      expect(presented.clientCertificate).toBe('webhooks.acme.test');

      // The certified webhook's connection is kept alive: the other webhook must not use it.
      await h.sendEvent({ type: 'card.updated', organization: organizationId, data: {} });
      expect((await firstAttempts(cookie, ['plain'])).plain!.error).toBe('tls error');
      expect(mtls.received.filter((request) => request.path === without)).toEqual([]);

      await write(cookie, 'patch', '/webhook/certified', { auth: { type: 'mtls', ...RSA_CLIENT } });
      await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
      const [, changed] = await mtls.waitFor(withCert, 2);
      expect(changed.clientCertificate).toBe('rsa.acme.test');
    });
  });

  it('never shows the client secret, the private key or a token: not in an answer, a log line, an audit entry, a stored byte, a metric or a span', async () => {
    const stored: string[] = [];
    const tables: { name: string }[] =
      kind === 'sqlite'
        ? await t.dataSource.query("SELECT name FROM sqlite_master WHERE type = 'table'")
        : await t.dataSource.query('SELECT table_name AS name FROM information_schema.tables WHERE table_schema = DATABASE()');
    for (const { name } of tables) stored.push(JSON.stringify(await t.dataSource.query(`SELECT * FROM ${name}`)));
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    await expect.poll(() => exported.join('').includes('oauth token request'), { timeout: 10_000 }).toBe(true);
    const everything = [...answers, ...t.logs, ...stored, metrics, ...exported].join('\n');
    expect(stored.join('').length).toBeGreaterThan(1000);
    expect(everything).not.toContain(CLIENT_SECRET);
    expect(everything).not.toContain(KEY_LINE);
    expect(everything).not.toContain(RSA_CLIENT.privateKey.split('\n')[1]);
    expect(tokens.requests.length).toBeGreaterThan(5);
    expect(everything).not.toMatch(/tok-\d+-[a-z0-9]+/);
    // What was looked through holds what the tests did: the client id is shown, and stored.
    expect(everything).toContain('acme hooks');
  });
});
