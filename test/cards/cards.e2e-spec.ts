import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardsService } from '../../src/cards/cards.service';
import type { CardStatus } from '../../src/cards/entities/card.entity';
import { hashToken } from '../../src/crypto/opaque-token';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { SESSION_COOKIE, TestApp } from '../support/test-app';
import { rawExchange } from '../support/raw-http';

/*
 * docs/api.md 4 (card provisioning) and 6: `GET /api/card/provisioning` answers only a live
 * wallet_extension bearer token that comes alone, serves the newest active or frozen card of
 * the token's user, and every answer carries `Cache-Control: no-store`.
 */

const PROVISIONING = '/api/card/provisioning';

const UNAUTHORIZED = { status: 401, body: { code: 'unauthorized' } };
const NO_CARD = { status: 404, body: { code: 'no card' } };
const NO_ISSUER = { status: 403, body: { code: 'no issuer' } };

/** Status and exact body of an answer, which must also forbid caching. */
function expectAnswer(res: Response, expected: { status: number; body: unknown }): void {
  expect({ status: res.status, body: res.body, cacheControl: res.headers['cache-control'] }).toEqual({
    ...expected,
    cacheControl: 'no-store',
  });
}

const ok = (card: IssuedCard) => ({ status: 200, body: { id: card.provisioningId, secret: card.provisioningSecret } });

/** A string for a `datetime(3)` column, `seconds` from now: a Date for MariaDB, UTC text for SQLite. */
function dbTime(kind: DatabaseKind, secondsFromNow: number): Date | string {
  const at = new Date(Date.now() + secondsFromNow * 1000);
  return kind === 'mariadb' ? at : at.toISOString().replace('T', ' ').replace('Z', '');
}

interface Holder {
  userId: number;
  organizationId: number;
  /** A live wallet_extension token of the user. */
  token: string;
}

interface IssuedCard {
  cardId: number;
  provisioningId: string;
  provisioningSecret: string;
}

describeEachDatabase('card provisioning', (kind) => {
  let t: TestApp;
  let cards: CardsService;
  let issuerId: number;

  beforeAll(async () => {
    t = await TestApp.start(kind);
    cards = t.app.get(CardsService);
    issuerId = await cards.createIssuer('Test Issuer', { kind: 'stored' });
  });
  afterAll(() => t.close());

  /** A new user, member of a new organization, holding a live wallet token and no card. */
  async function holder(): Promise<Holder> {
    const organizationId = await t.identity.createOrganization('Card Org');
    const userId = await t.identity.createUser(`${randomBytes(6).toString('hex')}@example.test`, null);
    await t.identity.setMembership(organizationId, userId, 'member');
    const { token } = await t.identity.createWalletToken(userId, 3600);
    return { userId, organizationId, token };
  }

  /** A card of the holder with an issuer and fresh, unique provisioning credentials. */
  async function issuedCard(h: Holder, status: CardStatus = 'active'): Promise<IssuedCard> {
    const provisioningId = `prov-${randomBytes(8).toString('hex')}`;
    const provisioningSecret = `pss-${randomBytes(24).toString('base64url')}`;
    const cardId = await cards.createCard(h.userId, h.organizationId, status, { issuerId, stored: { provisioningId, provisioningSecret } });
    return { cardId, provisioningId, provisioningSecret };
  }

  /** A card of the holder without an issuer, hence without credentials. */
  function bareCard(h: Holder, status: CardStatus = 'active'): Promise<number> {
    return cards.createCard(h.userId, h.organizationId, status);
  }

  /** A holder with one active issued card. */
  async function holderWithCard(): Promise<{ h: Holder; card: IssuedCard }> {
    const h = await holder();
    return { h, card: await issuedCard(h) };
  }

  function get(headers: Record<string, string>) {
    const req = t.http().get(PROVISIONING);
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req;
  }

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  async function sessionTokenOf(h: Holder): Promise<string> {
    return (await t.identity.createSession(h.userId, h.organizationId, 3600)).token;
  }

  function setTokenExpiry(token: string, secondsFromNow: number) {
    return t.dataSource.query('UPDATE access_tokens SET expires_at = ? WHERE token_hash = ?', [
      dbTime(kind, secondsFromNow),
      hashToken(token),
    ]);
  }

  describe('the Authorization header', () => {
    it('answers 401 without an Authorization header', async () => {
      await holderWithCard();
      expectAnswer(await get({}), UNAUTHORIZED);
    });

    it('answers 401 to a live wallet token under the Basic scheme', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ Authorization: `Basic ${h.token}` }), UNAUTHORIZED);
    });

    it('answers 401 to Basic credentials', async () => {
      await holderWithCard();
      expectAnswer(await get({ Authorization: 'Basic xyz' }), UNAUTHORIZED);
    });

    it('answers 401 to the Bearer scheme without a token', async () => {
      await holderWithCard();
      expectAnswer(await get({ Authorization: 'Bearer' }), UNAUTHORIZED);
    });

    it('answers 401 to a live token followed by an extra segment', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ Authorization: `Bearer ${h.token} extra` }), UNAUTHORIZED);
    });

    it('answers 401 to a live token after two spaces', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ Authorization: `Bearer  ${h.token}` }), UNAUTHORIZED);
    });

    it('answers 401 to a live token after a tab instead of a space', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ Authorization: `Bearer\t${h.token}` }), UNAUTHORIZED);
    });

    it('answers 401 to a live token without a scheme', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ Authorization: h.token }), UNAUTHORIZED);
    });

    it('answers 401 to an unknown, well-formed token', async () => {
      await holderWithCard();
      expectAnswer(await get(bearer(randomBytes(32).toString('base64url'))), UNAUTHORIZED);
    });

    it('answers 401 to a live token missing its last character', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get(bearer(h.token.slice(0, -1))), UNAUTHORIZED);
    });

    it('accepts the scheme in lower case', async () => {
      const { h, card } = await holderWithCard();
      expectAnswer(await get({ Authorization: `bearer ${h.token}` }), ok(card));
    });

    it('accepts the scheme in upper case', async () => {
      const { h, card } = await holderWithCard();
      expectAnswer(await get({ Authorization: `BEARER ${h.token}` }), ok(card));
    });
  });

  describe('exactly one Authorization header (raw connections)', () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen(0, '127.0.0.1');
      port = (t.app.getHttpServer().address() as AddressInfo).port;
    });

    const twoHeaders = (first: string, second: string) =>
      `GET ${PROVISIONING} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${first}\r\nAuthorization: ${second}\r\nConnection: close\r\n\r\n`;

    it('answers 401 to a live bearer token followed by a second, Basic Authorization header', async () => {
      const { h } = await holderWithCard();
      const res = await rawExchange(port, twoHeaders(`Bearer ${h.token}`, 'Basic abc'));
      expect({ status: res.status, body: JSON.parse(res.body) as unknown, cacheControl: res.headers['cache-control'] }).toEqual({
        status: 401,
        body: { code: 'unauthorized' },
        cacheControl: 'no-store',
      });
    });

    it('answers 401 to a live bearer token sent twice', async () => {
      const { h } = await holderWithCard();
      const res = await rawExchange(port, twoHeaders(`Bearer ${h.token}`, `Bearer ${h.token}`));
      expect(res.status).toBe(401);
    });

    it('answers 200 to the same live bearer token sent once on a raw connection', async () => {
      const { h, card } = await holderWithCard();
      const res = await rawExchange(
        port,
        `GET ${PROVISIONING} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${h.token}\r\nConnection: close\r\n\r\n`,
      );
      expect({ status: res.status, body: JSON.parse(res.body) as unknown }).toEqual({
        status: 200,
        body: { id: card.provisioningId, secret: card.provisioningSecret },
      });
    });
  });

  describe('nothing but the bearer token', () => {
    it('answers 401 to a live token beside an unrelated cookie', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ ...bearer(h.token), Cookie: 'theme=dark' }), UNAUTHORIZED);
    });

    it("answers 401 to a live token beside the user's own session cookie", async () => {
      const { h } = await holderWithCard();
      const session = await sessionTokenOf(h);
      expectAnswer(await get({ ...bearer(h.token), Cookie: `${SESSION_COOKIE}=${session}` }), UNAUTHORIZED);
    });

    it('answers 401 to a live token beside an empty Cookie header', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ ...bearer(h.token), Cookie: '' }), UNAUTHORIZED);
    });

    it('answers 401 to a live token beside a sessionid header', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ ...bearer(h.token), sessionid: 'abc' }), UNAUTHORIZED);
    });

    it('answers 401 to a live session token sent as the bearer token', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get(bearer(await sessionTokenOf(h))), UNAUTHORIZED);
    });

    it('answers 401 to a live wallet token sent only as the session cookie', async () => {
      const { h } = await holderWithCard();
      expectAnswer(await get({ Cookie: `${SESSION_COOKIE}=${h.token}` }), UNAUTHORIZED);
    });

    it("answers 401 to a browser-style request carrying only an owner's session cookie", async () => {
      const { h } = await holderWithCard();
      await t.identity.setMembership(h.organizationId, h.userId, 'owner');
      const session = await sessionTokenOf(h);
      const res = await get({
        Cookie: `theme=dark; ${SESSION_COOKIE}=${session}`,
        Accept: 'application/json, text/plain, */*',
        Origin: 'https://app.example.com',
        Referer: 'https://app.example.com/cards',
        'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
        'Sec-Fetch-Site': 'same-site',
        'Sec-Fetch-Mode': 'cors',
      });
      expectAnswer(res, UNAUTHORIZED);
    });
  });

  describe('the life of a wallet token', () => {
    it('answers 401 to a revoked token', async () => {
      const { h } = await holderWithCard();
      await t.identity.revokeWalletToken(h.token);
      expectAnswer(await get(bearer(h.token)), UNAUTHORIZED);
    });

    it('answers 401 to an expired token', async () => {
      const { h } = await holderWithCard();
      await setTokenExpiry(h.token, -2);
      expectAnswer(await get(bearer(h.token)), UNAUTHORIZED);
    });

    it('accepts a token whose expiry lies just ahead', async () => {
      const { h, card } = await holderWithCard();
      await setTokenExpiry(h.token, 60);
      expectAnswer(await get(bearer(h.token)), ok(card));
    });

    it('refuses a token on the request right after it is revoked', async () => {
      const { h, card } = await holderWithCard();
      expectAnswer(await get(bearer(h.token)), ok(card));
      await t.identity.revokeWalletToken(h.token);
      expectAnswer(await get(bearer(h.token)), UNAUTHORIZED);
    });

    it('keeps serving the other live tokens of a user when one is revoked', async () => {
      const { h, card } = await holderWithCard();
      const { token: other } = await t.identity.createWalletToken(h.userId, 3600);
      await t.identity.revokeWalletToken(h.token);
      expectAnswer(await get(bearer(other)), ok(card));
    });
  });

  describe('which card', () => {
    it('serves the provisioning id and secret of an active card with an issuer', async () => {
      const { h, card } = await holderWithCard();
      expectAnswer(await get(bearer(h.token)), ok(card));
    });

    it('serves a frozen card', async () => {
      const h = await holder();
      const card = await issuedCard(h, 'frozen');
      expectAnswer(await get(bearer(h.token)), ok(card));
    });

    it('answers 404 no card when the only card is closed', async () => {
      const h = await holder();
      await issuedCard(h, 'closed');
      expectAnswer(await get(bearer(h.token)), NO_CARD);
    });

    it('answers 404 no card to a user without any card', async () => {
      const h = await holder();
      expectAnswer(await get(bearer(h.token)), NO_CARD);
    });

    it('ignores a newer closed card and serves the older active one', async () => {
      const h = await holder();
      const active = await issuedCard(h, 'active');
      await issuedCard(h, 'closed');
      expectAnswer(await get(bearer(h.token)), ok(active));
    });

    it('serves a newer frozen card before an older active one', async () => {
      const h = await holder();
      await issuedCard(h, 'active');
      const frozen = await issuedCard(h, 'frozen');
      expectAnswer(await get(bearer(h.token)), ok(frozen));
    });

    it('serves a newer active card before an older frozen one', async () => {
      const h = await holder();
      await issuedCard(h, 'frozen');
      const active = await issuedCard(h, 'active');
      expectAnswer(await get(bearer(h.token)), ok(active));
    });

    it('judges newness by creation time', async () => {
      const h = await holder();
      const first = await issuedCard(h);
      await issuedCard(h);
      await t.dataSource.query("UPDATE cards SET created_at = '2999-01-01 00:00:00' WHERE id = ?", [first.cardId]);
      expectAnswer(await get(bearer(h.token)), ok(first));
    });

    it('falls back to the older card on the request right after the newest one is closed', async () => {
      const h = await holder();
      const older = await issuedCard(h);
      const newer = await issuedCard(h);
      expectAnswer(await get(bearer(h.token)), ok(newer));
      await cards.setStatus(newer.cardId, 'closed');
      expectAnswer(await get(bearer(h.token)), ok(older));
    });

    it('answers 404 no card on the request right after the only card is closed', async () => {
      const { h, card } = await holderWithCard();
      await cards.setStatus(card.cardId, 'closed');
      expectAnswer(await get(bearer(h.token)), NO_CARD);
    });

    it('serves a card of the user in any of their organizations', async () => {
      const h = await holder();
      const otherOrg = await t.identity.createOrganization('Second Org');
      await t.identity.setMembership(otherOrg, h.userId, 'member');
      await issuedCard(h);
      const card = await issuedCard({ ...h, organizationId: otherOrg });
      expectAnswer(await get(bearer(h.token)), ok(card));
    });

    it('answers 403 no issuer for an active card without an issuer', async () => {
      const h = await holder();
      await bareCard(h, 'active');
      expectAnswer(await get(bearer(h.token)), NO_ISSUER);
    });

    it('answers 403 no issuer for a frozen card without an issuer', async () => {
      const h = await holder();
      await bareCard(h, 'frozen');
      expectAnswer(await get(bearer(h.token)), NO_ISSUER);
    });

    it('answers 403 no issuer when the newest eligible card has no issuer, even if an older one has', async () => {
      const h = await holder();
      await issuedCard(h);
      await bareCard(h);
      expectAnswer(await get(bearer(h.token)), NO_ISSUER);
    });

    it('answers 404 no card rather than 403 when the only card without an issuer is closed', async () => {
      const h = await holder();
      await bareCard(h, 'closed');
      expectAnswer(await get(bearer(h.token)), NO_CARD);
    });

    it("never serves another user's card, even in the same organization", async () => {
      const owner = await holderWithCard();
      const other = await holder();
      await t.identity.setMembership(owner.h.organizationId, other.userId, 'member');
      expectAnswer(await get(bearer(other.token)), NO_CARD);
    });

    it("serves the caller's own card, not another user's newer one", async () => {
      const { h, card } = await holderWithCard();
      const other = await holder();
      await t.identity.setMembership(h.organizationId, other.userId, 'member');
      await issuedCard({ ...other, organizationId: h.organizationId });
      expectAnswer(await get(bearer(h.token)), ok(card));
    });
  });

  describe('errors before authentication still forbid caching', () => {
    it('answers 405 method not allowed to POST, naming GET and HEAD', async () => {
      const { h } = await holderWithCard();
      const res = await t.http().post(PROVISIONING).set(bearer(h.token));
      expectAnswer(res, { status: 405, body: { code: 'method not allowed' } });
      expect(res.headers.allow).toBe('GET, HEAD');
    });

    it('answers 415 unsupported media type to a GET with a text/plain body', async () => {
      const { h } = await holderWithCard();
      const res = await get(bearer(h.token)).set('Content-Type', 'text/plain').send('hello');
      expectAnswer(res, { status: 415, body: { code: 'unsupported media type' } });
    });

    it('answers 404 not found to a path below the endpoint', async () => {
      const { h } = await holderWithCard();
      const res = await t.http().get(`${PROVISIONING}/extra`).set(bearer(h.token));
      expectAnswer(res, { status: 404, body: { code: 'not found' } });
    });
  });

  describe('secrets stay secret', () => {
    it('never writes the provisioning secret or the wallet token to the logs', async () => {
      const { h, card } = await holderWithCard();
      expectAnswer(await get(bearer(h.token)), ok(card));
      expectAnswer(await get({ ...bearer(h.token), Cookie: `${SESSION_COOKIE}=${h.token}` }), UNAUTHORIZED);
      expectAnswer(await get({ ...bearer(h.token), sessionid: h.token }), UNAUTHORIZED);
      expectAnswer(await get({ Authorization: `Bearer ${h.token} ${card.provisioningSecret}` }), UNAUTHORIZED);
      const logs = t.logs.join('');
      expect(logs).toContain(PROVISIONING);
      expect(logs).not.toContain(h.token);
      expect(logs).not.toContain(card.provisioningSecret);
    });

    it('stores neither the provisioning secret nor the wallet token in plain text', async () => {
      const { h, card } = await holderWithCard();
      expectAnswer(await get(bearer(h.token)), ok(card));
      const cardRows: Record<string, unknown>[] = await t.dataSource.query('SELECT * FROM cards');
      const tokenRows: Record<string, unknown>[] = await t.dataSource.query('SELECT * FROM access_tokens');
      expect(cardRows.some((row) => row.provisioning_id === card.provisioningId && row.provisioning_secret !== null)).toBe(true);
      expect(tokenRows.some((row) => row.token_hash === hashToken(h.token))).toBe(true);
      const stored = JSON.stringify([cardRows, tokenRows]);
      expect(stored).not.toContain(card.provisioningSecret);
      expect(stored).not.toContain(h.token);
    });
  });

  describe('OpenAPI document', () => {
    type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    let doc: Json;

    beforeAll(async () => {
      const res = await t.http().get('/docs/openapi.json');
      expect(res.status).toBe(200);
      doc = res.body as Json;
    });

    /** Follows a `$ref` into the document's components. */
    const resolve = (schema: Json): Json =>
      schema.$ref
        ? resolve(
            schema.$ref
              .slice(2)
              .split('/')
              .reduce((node: Json, key: string) => node[key], doc),
          )
        : schema;

    /** Names of the security schemes that are HTTP bearer schemes. */
    const bearerSchemes = (): string[] =>
      Object.entries(doc.components.securitySchemes as Json)
        .filter(([, scheme]) => scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer')
        .map(([name]) => name);

    const operation = () => doc.paths[PROVISIONING].get as Json;

    /** docs/api.md 6 and 6.1: every operation of a wallet extension. */
    const CARD_OPERATIONS: [path: string, method: string][] = [
      [PROVISIONING, 'get'],
      [`${PROVISIONING}/entries`, 'get'],
      ['/api/card/{id}/provisioning/apple', 'post'],
      ['/api/card/{id}/provisioning/google', 'post'],
    ];

    it('secures every card provisioning operation with a bearer scheme of its own and only that one', () => {
      const schemes = CARD_OPERATIONS.map(([path, method]) => {
        const security = doc.paths[path][method].security as Json[];
        expect(security).toHaveLength(1);
        expect(Object.values(security[0])).toEqual([[]]);
        return Object.keys(security[0]);
      });
      const [name] = schemes[0];
      expect(schemes).toEqual(CARD_OPERATIONS.map(() => [name]));
      expect(bearerSchemes()).toContain(name);
      const others = Object.entries(doc.paths as Json)
        .flatMap(([path, methods]) =>
          Object.entries(methods as Json).filter(([method]) => !CARD_OPERATIONS.some((op) => op[0] === path && op[1] === method)),
        )
        .flatMap(([, op]) => ((op.security ?? []) as Json[]).flatMap((requirement) => Object.keys(requirement)));
      expect(others).not.toContain(name);
    });

    it('sets no document-wide security that would reach other operations', () => {
      expect(doc.security ?? []).toEqual([]);
    });

    it('does not offer the bearer scheme to any webhook operation', () => {
      const bearer = bearerSchemes();
      const webhookOperations = Object.entries(doc.paths as Json)
        .filter(([path]) => path.startsWith('/api/webhook'))
        .flatMap(([, methods]) => Object.values(methods as Json));
      expect(webhookOperations.length).toBeGreaterThanOrEqual(7);
      for (const op of webhookOperations) {
        const names = ((op.security ?? []) as Json[]).flatMap((requirement) => Object.keys(requirement));
        expect(names.filter((name) => bearer.includes(name))).toEqual([]);
      }
    });

    it('documents the 200 answer as {id, secret}', () => {
      const schema = resolve(operation().responses['200'].content['application/json'].schema);
      expect(Object.keys(schema.properties).sort()).toEqual(['id', 'secret']);
      expect([schema.properties.id.type, schema.properties.secret.type]).toEqual(['string', 'string']);
      expect([...schema.required].sort()).toEqual(['id', 'secret']);
    });

    it.each([
      ['401', ['unauthorized']],
      ['403', ['no issuer']],
      ['404', ['no card']],
    ])('documents the %s answer with its error codes', (status, codes) => {
      const schema = resolve(operation().responses[status].content['application/json'].schema);
      expect(schema.required).toEqual(['code']);
      expect(schema.properties.code.enum).toEqual(codes);
    });
  });
});
