import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IssuerSettings } from '../../src/cards/card-operations';
import { CardsService } from '../../src/cards/cards.service';
import type { CardNetwork, CardStatus } from '../../src/cards/entities/card.entity';
import { Metrics } from '../../src/metrics/metrics';
import { openApplePayload, WALLET_CERTIFICATES } from '../support/apple-wallet';
import { describeEachDatabase } from '../support/databases';
import { startProcessorSimulator } from '../support/processes';
import { SESSION_COOKIE, TestApp } from '../support/test-app';

/*
 * docs/api.md 6.1 through the real application and the built processor simulator, on each
 * database: the entries a wallet extension lists, the Apple and Google payloads from Marqeta and
 * Lithic, every answer of the order of checks, every failure of a processor mapped as the contract
 * says with nothing of its body passed on, the user's limit, the audit entry; and, over the whole
 * run, no nonce, certificate, signature or payload in a log line, an audit entry or a metric.
 */

/** A deadline short enough that the simulator's 30 s card fails fast. */
const ISSUER_TIMEOUT_MS = 800;
const HEX = (base64: string) => Buffer.from(base64, 'base64').toString('hex');
const b64 = (bytes: number) => randomBytes(bytes).toString('base64');

interface Holder {
  organizationId: number;
  userId: number;
  email: string;
  token: string;
}

let simulator: { baseUrl: string; stop: () => Promise<void> };
/** A loopback port nothing listens on: a processor that refuses connections. */
let closedPort: number;

beforeAll(async () => {
  simulator = await startProcessorSimulator();
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPort = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
});
afterAll(() => simulator?.stop());

describeEachDatabase('wallet push provisioning through the processor simulator', (kind) => {
  let t: TestApp;
  let cards: CardsService;
  /** Issuer ids by name. */
  const issuers: Record<string, number> = {};
  /** Every nonce, signature, certificate and payload value of the run: none may be logged, audited or counted. */
  const secrets: string[] = [...WALLET_CERTIFICATES];

  beforeAll(async () => {
    t = await TestApp.start(kind, { env: { ISSUER_TIMEOUT_MS: String(ISSUER_TIMEOUT_MS) } });
    cards = t.app.get(CardsService);
    const marqeta = (username: string, baseUrl = simulator.baseUrl): IssuerSettings => ({
      kind: 'marqeta',
      baseUrl,
      credentials: { username, password: 'admin-access-token' },
    });
    const lithic = (apiKey: string, baseUrl = simulator.baseUrl): IssuerSettings => ({ kind: 'lithic', baseUrl, credentials: { apiKey } });
    const settings: Record<string, IssuerSettings> = {
      marqeta: marqeta('application-token'),
      lithic: lithic('lithic-api-key'),
      marqetaRefused: marqeta('bad-application-token'),
      lithicRefused: lithic('bad-api-key'),
      unreachable: lithic('lithic-api-key', `http://127.0.0.1:${closedPort}`),
      stored: { kind: 'stored' },
    };
    for (const [name, issuer] of Object.entries(settings)) issuers[name] = await cards.createIssuer(name, issuer);
  });
  afterAll(() => t?.close());

  async function holder(): Promise<Holder> {
    const organizationId = await t.identity.createOrganization('Wallet Org');
    const email = `${randomBytes(6).toString('hex')}@example.test`;
    const userId = await t.identity.createUser(email, null);
    await t.identity.setMembership(organizationId, userId, 'member');
    return { organizationId, userId, email, token: (await t.identity.createWalletToken(userId, 3600)).token };
  }

  /** A card of the holder at `issuer`'s processor. */
  function card(h: Holder, issuer: string, options: { token?: string; status?: CardStatus; network?: CardNetwork; title?: string } = {}) {
    return cards.createCard(h.userId, h.organizationId, options.status ?? 'active', {
      issuerId: issuers[issuer],
      processor: {
        processorToken: options.token ?? `card-${randomBytes(4).toString('hex')}`,
        title: options.title ?? 'Everyday',
        cardholderName: 'Ann Lee',
        primaryAccountSuffix: '4242',
        network: options.network ?? 'visa',
      },
    });
  }

  const appleBody = () => {
    const body = { certificates: [...WALLET_CERTIFICATES], nonce: b64(16), nonceSignature: b64(64) };
    secrets.push(body.nonce, body.nonceSignature, HEX(body.nonce), HEX(body.nonceSignature));
    return body;
  };
  const GOOGLE_BODY = { clientDeviceId: 'device-1', clientWalletAccountId: 'wallet-1' };

  function push(h: Holder, cardId: number | string, wallet: 'apple' | 'google', body: object, headers: Record<string, string> = {}) {
    return t
      .http()
      .post(`/api/card/${cardId}/provisioning/${wallet}`)
      .set({ Authorization: `Bearer ${h.token}`, ...headers })
      .send(body);
  }

  /** Status, body and Retry-After of an answer, which must forbid caching and carry nothing of a processor's answer. */
  function answerOf(res: Response) {
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.text).not.toContain('simulator');
    if (res.status === 200) {
      const { activationData, encryptedPassData, ephemeralPublicKey, opaquePaymentCard } = res.body as Record<string, string | undefined>;
      secrets.push(...[activationData, encryptedPassData, ephemeralPublicKey, opaquePaymentCard].filter((value) => value !== undefined));
    }
    return {
      status: res.status,
      body: res.body as unknown,
      ...(res.headers['retry-after'] !== undefined && { retryAfter: res.headers['retry-after'] }),
    };
  }

  const UNAVAILABLE = { status: 503, body: { code: 'issuer unavailable' }, retryAfter: '5' };

  describe('the entries', () => {
    it("lists the caller's active and frozen cards of processor issuers, newest first, and no other", async () => {
      const h = await holder();
      const older = await card(h, 'marqeta', { title: 'Travel', network: 'mastercard' });
      const frozen = await card(h, 'lithic', { status: 'frozen' });
      await card(h, 'lithic', { status: 'closed' });
      await cards.createCard(h.userId, h.organizationId, 'active', {
        issuerId: issuers.stored,
        stored: { provisioningId: 'prov-1', provisioningSecret: 'secret-1' },
      });
      await cards.createCard(h.userId, h.organizationId, 'active');
      await card(await holder(), 'lithic');
      const res = await t.http().get('/api/card/provisioning/entries').set('Authorization', `Bearer ${h.token}`);
      expect(answerOf(res)).toEqual({
        status: 200,
        body: {
          data: [
            {
              id: String(frozen),
              title: 'Everyday',
              cardholderName: 'Ann Lee',
              primaryAccountSuffix: '4242',
              network: 'visa',
              wallets: ['apple', 'google'],
            },
            {
              id: String(older),
              title: 'Travel',
              cardholderName: 'Ann Lee',
              primaryAccountSuffix: '4242',
              network: 'mastercard',
              wallets: ['apple', 'google'],
            },
          ],
        },
      });
    });

    it('answers an empty list to a user without such cards, and 401 to a cookie beside the bearer', async () => {
      const h = await holder();
      const list = () => t.http().get('/api/card/provisioning/entries').set('Authorization', `Bearer ${h.token}`);
      expect(answerOf(await list())).toEqual({ status: 200, body: { data: [] } });
      expect(answerOf(await list().set('Cookie', `${SESSION_COOKIE}=x`))).toEqual({ status: 401, body: { code: 'unauthorized' } });
    });
  });

  describe('a payload from each processor', () => {
    it.each(['marqeta', 'lithic'])(
      "answers Apple's payload from %s, which the leaf certificate's private key opens to the nonce sent",
      async (issuer) => {
        const h = await holder();
        const body = { ...appleBody(), deviceType: 'watch' };
        const res = await push(h, await card(h, issuer), 'apple', body);
        const answer = answerOf(res);
        expect(answer.status).toBe(200);
        expect(Object.keys(res.body as object).sort()).toEqual(['activationData', 'encryptedPassData', 'ephemeralPublicKey']);
        expect(openApplePayload(res.body as { encryptedPassData: string; ephemeralPublicKey: string })).toEqual({
          nonce: HEX(body.nonce),
          nonceSignature: HEX(body.nonceSignature),
        });
      },
    );

    it.each(['marqeta', 'lithic'])("answers Google's payload from %s, what the processor does not carry from the card", async (issuer) => {
      const h = await holder();
      const res = await push(h, await card(h, issuer, { network: 'mastercard', title: 'Travel' }), 'google', GOOGLE_BODY);
      expect(answerOf(res)).toEqual({
        status: 200,
        body: {
          opaquePaymentCard: expect.any(String),
          network: 'MASTERCARD',
          tokenServiceProvider: 'TOKEN_PROVIDER_MASTERCARD',
          displayName: 'Travel',
          lastDigits: '4242',
        },
      });
    });

    it("audits each payload as card.provisioned by the card's user, in the card's organization, naming the card", async () => {
      const h = await holder();
      const cardId = await card(h, 'lithic');
      expect((await push(h, cardId, 'google', GOOGLE_BODY)).status).toBe(200);
      expect((await push(h, cardId, 'apple', appleBody())).status).toBe(200);
      const owner = await t.member('owner', h.organizationId);
      const res = await t.http().get('/api/audit').set('Cookie', owner.cookie);
      const email = h.email;
      expect((res.body as { data: unknown[] }).data.map((entry) => ({ ...(entry as object), id: 0, at: '' }))).toEqual([
        { id: 0, at: '', actor: { user: h.userId, email }, action: 'card.provisioned', card: String(cardId), fields: ['apple'] },
        { id: 0, at: '', actor: { user: h.userId, email }, action: 'card.provisioned', card: String(cardId), fields: ['google'] },
      ]);
    });
  });

  describe('the order of checks', () => {
    it('answers 401 to a live bearer token beside a cookie, before anything else', async () => {
      const h = await holder();
      const res = await push(h, await card(h, 'marqeta'), 'apple', appleBody(), { Cookie: 'theme=dark' });
      expect(answerOf(res)).toEqual({ status: 401, body: { code: 'unauthorized' } });
    });

    it("answers 404 no card to another user's card, a closed one, an unknown id, abc, -1 and an id past 2^53, whatever the body", async () => {
      const h = await holder();
      const others = await card(await holder(), 'marqeta');
      const closed = await card(h, 'marqeta', { status: 'closed' });
      for (const id of [others, closed, 2_000_000_000, 'abc', '-1', '9007199254740993']) {
        expect(answerOf(await push(h, id, 'apple', { deviceType: 'tv' }))).toEqual({ status: 404, body: { code: 'no card' } });
      }
    });

    it("answers 403 no issuer to a stored issuer's card and to a card without an issuer, whatever the body", async () => {
      const h = await holder();
      const stored = await cards.createCard(h.userId, h.organizationId, 'active', {
        issuerId: issuers.stored,
        stored: { provisioningId: 'prov-2', provisioningSecret: 'secret-2' },
      });
      const bare = await cards.createCard(h.userId, h.organizationId, 'frozen');
      for (const id of [stored, bare]) {
        expect(answerOf(await push(h, id, 'google', { clientDeviceId: 'a b' }))).toEqual({ status: 403, body: { code: 'no issuer' } });
      }
    });

    it('answers 400 bad request naming the field to each rule of the Apple body', async () => {
      const h = await holder();
      const cardId = await card(h, 'lithic');
      const valid = appleBody();
      const cases: [object, string][] = [
        [{ certificates: [] }, 'certificates: must be an array of 1 to 3 certificates, the leaf first'],
        [
          { certificates: [...WALLET_CERTIFICATES, ...WALLET_CERTIFICATES] },
          'certificates: must be an array of 1 to 3 certificates, the leaf first',
        ],
        [{ certificates: ['A'.repeat(4100)] }, 'certificates: item 1 is longer than 4096 characters'],
        [{ certificates: ['not base64'] }, 'certificates: item 1 is not base64 (DER)'],
        [{ nonce: undefined }, 'nonce: is required'],
        [{ nonceSignature: '***' }, 'nonceSignature: must be base64'],
        [{ deviceType: 'tv' }, 'deviceType: must be one of phone, watch, tablet'],
        [{ primaryAccountNumber: '4111111111111111' }, 'primaryAccountNumber: unknown member'],
      ];
      for (const [change, message] of cases) {
        expect(answerOf(await push(h, cardId, 'apple', { ...valid, ...change }))).toEqual({
          status: 400,
          body: { code: 'bad request', message: [message] },
        });
      }
    });
  });

  describe("a processor's failures", () => {
    it('answers 404 no card when the processor does not know the card', async () => {
      const h = await holder();
      expect(answerOf(await push(h, await card(h, 'marqeta', { token: 'unknown-1' }), 'apple', appleBody()))).toEqual({
        status: 404,
        body: { code: 'no card' },
      });
    });

    it('answers 400 bad request when the processor refuses the request as invalid', async () => {
      const h = await holder();
      const res = await push(h, await card(h, 'marqeta', { token: 'invalid-1' }), 'google', GOOGLE_BODY);
      expect(answerOf(res)).toEqual({
        status: 400,
        body: { code: 'bad request', message: ['clientDeviceId or clientWalletAccountId: refused by the card processor'] },
      });
    });

    it.each([
      ['its 500', 'lithic', 'fail-1'],
      ['an answer slower than ISSUER_TIMEOUT_MS', 'marqeta', 'slow-1'],
      ['a refused connection', 'unreachable', 'card-1'],
      ['its 401 to our Marqeta credentials', 'marqetaRefused', 'card-1'],
      ['its 401 to our Lithic API key', 'lithicRefused', 'card-1'],
    ])('answers 503 issuer unavailable with Retry-After to %s', async (_, issuer, token) => {
      const h = await holder();
      const started = Date.now();
      expect(answerOf(await push(h, await card(h, issuer, { token }), 'apple', appleBody()))).toEqual(UNAVAILABLE);
      expect(Date.now() - started).toBeLessThan(ISSUER_TIMEOUT_MS + 2000);
    });
  });

  it('answers the 11th payload request of a user in a minute 429 rate limited with Retry-After, the entries not counted', async () => {
    const h = await holder();
    const cardId = await card(h, 'lithic', { token: 'unknown-2' });
    for (let i = 0; i < 10; i++) {
      expect((await push(h, cardId, i % 2 === 0 ? 'google' : 'apple', {})).status).not.toBe(429);
      expect((await t.http().get('/api/card/provisioning/entries').set('Authorization', `Bearer ${h.token}`)).status).toBe(200);
    }
    const { token } = await t.identity.createWalletToken(h.userId, 3600);
    const res = await push({ ...h, token }, cardId, 'google', GOOGLE_BODY);
    expect({ status: res.status, body: res.body as unknown, cacheControl: res.headers['cache-control'] }).toEqual({
      status: 429,
      body: { code: 'rate limited' },
      cacheControl: 'no-store',
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('wrote no nonce, certificate, signature or payload to a log line, an audit entry or a metric in the whole run', async () => {
    const entries = JSON.stringify(await t.dataSource.query('SELECT * FROM audit_entries'));
    const metrics = await t.app.get(Metrics).registry.metrics();
    expect(metrics).toMatch(/platform_api_card_processor_calls_total\{processor="lithic",wallet="apple",outcome="ok"\} [1-9]/);
    const haystacks = { logs: t.logs.join(''), entries, metrics };
    const found = Object.entries(haystacks).flatMap(([where, text]) =>
      secrets.filter((secret) => text.includes(secret)).map((secret) => `${where}: ${secret.slice(0, 16)}…`),
    );
    expect(found).toEqual([]);
    expect(secrets.length).toBeGreaterThan(40);
  });
});
