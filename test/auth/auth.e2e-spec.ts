import { randomBytes } from 'node:crypto';
import type { Response, Test } from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/crypto/opaque-token';
import type { Role } from '../../src/identity/entities/member.entity';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { SESSION_COOKIE, TestApp } from '../support/test-app';

/*
 * docs/api.md 4, webhook operations: 401 (no live session cookie), then 403 `no organization`, then
 * 403 `no permission`, and only then validation; every check reads the database afresh.
 */

const HOST = 'hooks.example.com';
const URL_A = `https://${HOST}/a`;

/** One webhook operation, sent with `headers` and a valid path and body for `name`. */
interface Operation {
  readonly title: string;
  /** Status of a successful call by an owner or admin (the webhook `name` exists unless creating). */
  readonly ok: number;
  /** Whether a successful call needs the webhook to exist beforehand. */
  readonly needsExisting: boolean;
  send(t: TestApp, name: string, headers: Record<string, string>): Test;
}

const withHeaders = (test: Test, headers: Record<string, string>): Test => {
  for (const [key, value] of Object.entries(headers)) test.set(key, value);
  return test;
};

const OPERATIONS: readonly Operation[] = [
  { title: 'GET /api/webhook', ok: 200, needsExisting: false, send: (t, _name, h) => withHeaders(t.http().get('/api/webhook'), h) },
  {
    title: 'GET /api/webhook/{name}',
    ok: 200,
    needsExisting: true,
    send: (t, name, h) => withHeaders(t.http().get(`/api/webhook/${name}`), h),
  },
  {
    title: 'POST /api/webhook/{name}',
    ok: 201,
    needsExisting: false,
    send: (t, name, h) => withHeaders(t.http().post(`/api/webhook/${name}`), h).send({ url: URL_A }),
  },
  {
    title: 'POST /api/webhook (legacy)',
    ok: 200,
    needsExisting: false,
    send: (t, name, h) => withHeaders(t.http().post('/api/webhook'), h).send({ name, url: URL_A }),
  },
  {
    title: 'PATCH /api/webhook/{name}',
    ok: 200,
    needsExisting: true,
    send: (t, name, h) => withHeaders(t.http().patch(`/api/webhook/${name}`), h).send({ url: `https://${HOST}/patched` }),
  },
  {
    title: 'DELETE /api/webhook/{name}',
    ok: 200,
    needsExisting: true,
    send: (t, name, h) => withHeaders(t.http().delete(`/api/webhook/${name}`), h),
  },
  {
    title: 'DELETE /api/webhook (legacy)',
    ok: 200,
    needsExisting: false,
    send: (t, name, h) => withHeaders(t.http().delete('/api/webhook'), h).send({ name }),
  },
];

const cookieOf = (token: string) => ({ Cookie: `${SESSION_COOKIE}=${token}` });
const uniqueName = () => `hook-${randomBytes(4).toString('hex')}`;

/** A string for a `datetime(3)` column, `seconds` from now: a Date for MariaDB, UTC text for SQLite. */
function dbTime(kind: DatabaseKind, secondsFromNow: number): Date | string {
  const at = new Date(Date.now() + secondsFromNow * 1000);
  return kind === 'mariadb' ? at : at.toISOString().replace('T', ' ').replace('Z', '');
}

function expectError(res: Response, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { code } });
}

describeEachDatabase('authentication and authorization', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: { [HOST]: { A: ['93.184.215.14'] } } });
  });
  afterAll(() => t.close());

  /** Creates webhook `name` in the organization as a fresh owner of it. */
  async function createWebhook(organizationId: number, name: string, url = URL_A): Promise<void> {
    const owner = await t.member('owner', organizationId);
    const res = await t.http().post(`/api/webhook/${name}`).set('Cookie', owner.cookie).send({ url });
    expect(res.status).toBe(201);
  }

  async function expireSession(token: string): Promise<void> {
    await t.dataSource.query('UPDATE sessions SET expires_at = ? WHERE token_hash = ?', [dbTime(kind, -2), hashToken(token)]);
  }

  /** A user with these memberships and a session whose active organization is `active`. */
  async function sessionFor(memberships: { organizationId: number; role: Role }[], active: number | null): Promise<string> {
    const userId = await t.identity.createUser(`${randomBytes(6).toString('hex')}@example.test`, null);
    for (const m of memberships) await t.identity.setMembership(m.organizationId, userId, m.role);
    return (await t.identity.createSession(userId, active, 3600)).token;
  }

  /** A session whose active organization is one its user does not belong to. */
  async function sessionInForeignOrganization(role: Role): Promise<string> {
    const own = await t.member(role);
    const foreign = await t.identity.createOrganization('Foreign Org');
    await t.dataSource.query('UPDATE sessions SET active_organization_id = ? WHERE token_hash = ?', [foreign, hashToken(own.token)]);
    return own.token;
  }

  for (const op of OPERATIONS) {
    describe(op.title, () => {
      describe('401 unauthorized', () => {
        it('without any cookie', async () => {
          expectError(await op.send(t, 'hook', {}), 401, 'unauthorized');
        });

        it('with the session cookie under another cookie name', async () => {
          const { token } = await t.member('owner');
          expectError(await op.send(t, 'hook', { Cookie: `auth.session_token=${token}` }), 401, 'unauthorized');
        });

        it('with an unknown, well-formed token', async () => {
          expectError(await op.send(t, 'hook', cookieOf(randomBytes(32).toString('base64url'))), 401, 'unauthorized');
        });

        it('with a token one character too short', async () => {
          const { token } = await t.member('owner');
          expectError(await op.send(t, 'hook', cookieOf(token.slice(0, -1))), 401, 'unauthorized');
        });

        it('with a token one character too long', async () => {
          const { token } = await t.member('owner');
          expectError(await op.send(t, 'hook', cookieOf(`${token}A`)), 401, 'unauthorized');
        });

        it('with a token of the right length holding characters outside base64url', async () => {
          const { token } = await t.member('owner');
          expectError(await op.send(t, 'hook', cookieOf(`${token.slice(0, -1)}!`)), 401, 'unauthorized');
        });

        it('with an empty cookie value', async () => {
          expectError(await op.send(t, 'hook', cookieOf('')), 401, 'unauthorized');
        });

        it('with an expired session', async () => {
          const { token } = await t.member('owner');
          await expireSession(token);
          expectError(await op.send(t, 'hook', cookieOf(token)), 401, 'unauthorized');
        });

        it('with a revoked session', async () => {
          const { token } = await t.member('owner');
          await t.identity.revokeSession(token);
          expectError(await op.send(t, 'hook', cookieOf(token)), 401, 'unauthorized');
        });

        it('with a live session token sent as Authorization: Bearer instead of the cookie', async () => {
          const { token } = await t.member('owner');
          expectError(await op.send(t, 'hook', { Authorization: `Bearer ${token}` }), 401, 'unauthorized');
        });

        it('with a live wallet_extension access token in the session cookie', async () => {
          const { userId } = await t.member('owner');
          const { token } = await t.identity.createWalletToken(userId, 3600);
          expectError(await op.send(t, 'hook', cookieOf(token)), 401, 'unauthorized');
        });
      });

      describe('403 no organization', () => {
        it('when the active organization is one the user is not a member of', async () => {
          const token = await sessionInForeignOrganization('owner');
          expectError(await op.send(t, 'hook', cookieOf(token)), 403, 'no organization');
        });

        it('when there is no active organization and the user has two memberships', async () => {
          const a = await t.identity.createOrganization('A');
          const b = await t.identity.createOrganization('B');
          const token = await sessionFor(
            [
              { organizationId: a, role: 'owner' },
              { organizationId: b, role: 'owner' },
            ],
            null,
          );
          expectError(await op.send(t, 'hook', cookieOf(token)), 403, 'no organization');
        });

        it('when there is no active organization and the user has no membership', async () => {
          const token = await sessionFor([], null);
          expectError(await op.send(t, 'hook', cookieOf(token)), 403, 'no organization');
        });
      });

      describe('403 no permission', () => {
        it('for the role member', async () => {
          const { cookie } = await t.member('member');
          expectError(await op.send(t, 'hook', { Cookie: cookie }), 403, 'no permission');
        });
      });

      describe('allowed roles', () => {
        for (const role of ['owner', 'admin'] as const) {
          it(`lets an ${role} through (${op.ok})`, async () => {
            const name = uniqueName();
            const { organizationId } = await t.member('owner');
            if (op.needsExisting) await createWebhook(organizationId, name);
            const { cookie } = await t.member(role, organizationId);
            const res = await op.send(t, name, { Cookie: cookie });
            expect(res.status).toBe(op.ok);
          });
        }
      });
    });
  }

  describe('organization fallback without an active organization', () => {
    it('acts in the only organization of the user', async () => {
      const { organizationId } = await t.member('owner');
      await createWebhook(organizationId, 'only-one', `https://${HOST}/only-one`);
      const token = await sessionFor([{ organizationId, role: 'admin' }], null);
      const res = await t.http().get('/api/webhook/only-one').set(cookieOf(token));
      expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: { url: `https://${HOST}/only-one` } });
    });

    it('creates in the only organization of the user', async () => {
      const { organizationId, cookie: ownerCookie } = await t.member('owner');
      const token = await sessionFor([{ organizationId, role: 'owner' }], null);
      expect((await t.http().post('/api/webhook/made-by-fallback').set(cookieOf(token)).send({ url: URL_A })).status).toBe(201);
      const listed = await t.http().get('/api/webhook').set('Cookie', ownerCookie);
      expect(listed.body).toEqual({ 'made-by-fallback': { url: URL_A } });
    });

    it('still checks the role of that only membership', async () => {
      const { organizationId } = await t.member('owner');
      const token = await sessionFor([{ organizationId, role: 'member' }], null);
      expectError(await t.http().get('/api/webhook').set(cookieOf(token)), 403, 'no permission');
    });
  });

  describe('order of the checks', () => {
    it('answers 401 before validating an invalid path name', async () => {
      expectError(await t.http().get('/api/webhook/Not_A_Name'), 401, 'unauthorized');
    });

    it('answers 401 before validating an invalid create body', async () => {
      expectError(await t.http().post('/api/webhook/hook').send({ url: 42, secret: 'x' }), 401, 'unauthorized');
    });

    it('answers 401 before validating a legacy body without a name', async () => {
      expectError(await t.http().post('/api/webhook').send({ url: 'http://localhost/' }), 401, 'unauthorized');
    });

    it('answers 401 for an expired session before validating an invalid name', async () => {
      const { token } = await t.member('owner');
      await expireSession(token);
      expectError(await t.http().delete('/api/webhook/Not_A_Name').set(cookieOf(token)), 401, 'unauthorized');
    });

    it('answers 403 no permission to a member before validating an invalid path name', async () => {
      const { cookie } = await t.member('member');
      expectError(await t.http().patch('/api/webhook/Not_A_Name').set('Cookie', cookie).send({ url: 'nope' }), 403, 'no permission');
    });

    it('answers 403 no permission to a member before validating an invalid legacy body', async () => {
      const { cookie } = await t.member('member');
      expectError(await t.http().delete('/api/webhook').set('Cookie', cookie).send({}), 403, 'no permission');
    });

    it('answers 403 no organization before validating an invalid path name', async () => {
      const token = await sessionInForeignOrganization('owner');
      expectError(await t.http().get('/api/webhook/Not_A_Name').set(cookieOf(token)), 403, 'no organization');
    });

    it('answers no organization rather than no permission for a member in a foreign active organization', async () => {
      const token = await sessionInForeignOrganization('member');
      expectError(await t.http().get('/api/webhook').set(cookieOf(token)), 403, 'no organization');
    });

    it('answers no organization rather than no permission for a member of two organizations without an active one', async () => {
      const a = await t.identity.createOrganization('A');
      const b = await t.identity.createOrganization('B');
      const token = await sessionFor(
        [
          { organizationId: a, role: 'member' },
          { organizationId: b, role: 'member' },
        ],
        null,
      );
      expectError(await t.http().get('/api/webhook').set(cookieOf(token)), 403, 'no organization');
    });
  });

  describe("the console's routes (docs/api.md 10.7, 10.9, 10.10, 10.14): the same callers, then the webhook", () => {
    /** Each console route for webhook `name` (delivery 1 of it, where the route names one). */
    const CONSOLE_ROUTES: readonly [string, (name: string, h: Record<string, string>) => Test][] = [
      ['GET …/deliveries', (name, h) => withHeaders(t.http().get(`/api/webhook/${name}/deliveries`), h)],
      ['GET …/deliveries/{id}', (name, h) => withHeaders(t.http().get(`/api/webhook/${name}/deliveries/1`), h)],
      ['POST …/deliveries/{id}/retry', (name, h) => withHeaders(t.http().post(`/api/webhook/${name}/deliveries/1/retry`), h)],
      ['POST …/test', (name, h) => withHeaders(t.http().post(`/api/webhook/${name}/test`), h)],
      ['POST …/secret/rotate', (name, h) => withHeaders(t.http().post(`/api/webhook/${name}/secret/rotate`), h).send({})],
      ['POST …/enable', (name, h) => withHeaders(t.http().post(`/api/webhook/${name}/enable`), h)],
      [
        'POST …/recover',
        (name, h) =>
          withHeaders(t.http().post(`/api/webhook/${name}/recover`), h).send({ since: new Date(Date.now() - 3600_000).toISOString() }),
      ],
      ['GET /api/audit', (_name, h) => withHeaders(t.http().get('/api/audit'), h)],
    ];

    it.each(CONSOLE_ROUTES)('%s: 401 without a session, and with a live platform key as the cookie', async (_, send) => {
      expectError(await send('hook', {}), 401, 'unauthorized');
      const { token } = await t.identity.createPlatformKey('in a cookie');
      expectError(await send('hook', cookieOf(token)), 401, 'unauthorized');
    });

    it.each(CONSOLE_ROUTES)('%s: 403 no organization, then 403 no permission for a member', async (_, send) => {
      expectError(await send('hook', cookieOf(await sessionFor([], null))), 403, 'no organization');
      const { cookie } = await t.member('member');
      expectError(await send('hook', { Cookie: cookie }), 403, 'no permission');
    });

    it.each(CONSOLE_ROUTES.slice(0, -1))("%s: 404 not found for another organization's webhook", async (_, send) => {
      const other = await t.member('owner');
      await createWebhook(other.organizationId, 'theirs');
      const { cookie } = await t.member('owner');
      expectError(await send('theirs', { Cookie: cookie }), 404, 'not found');
    });
  });

  describe('no caching of credentials', () => {
    it('refuses a session on the request right after it is revoked', async () => {
      const { token } = await t.member('owner');
      expect((await t.http().get('/api/webhook').set(cookieOf(token))).status).toBe(200);
      await t.identity.revokeSession(token);
      expectError(await t.http().get('/api/webhook').set(cookieOf(token)), 401, 'unauthorized');
    });

    it('refuses a session on the request right after it expires', async () => {
      const { token } = await t.member('owner');
      expect((await t.http().get('/api/webhook').set(cookieOf(token))).status).toBe(200);
      await expireSession(token);
      expectError(await t.http().get('/api/webhook').set(cookieOf(token)), 401, 'unauthorized');
    });

    it('accepts a session whose expiry lies just ahead', async () => {
      const { token } = await t.member('owner');
      await t.dataSource.query('UPDATE sessions SET expires_at = ? WHERE token_hash = ?', [dbTime(kind, 60), hashToken(token)]);
      expect((await t.http().get('/api/webhook').set(cookieOf(token))).status).toBe(200);
    });

    it('refuses an owner on the request right after the role becomes member', async () => {
      const { token, organizationId, userId } = await t.member('owner');
      expect((await t.http().get('/api/webhook').set(cookieOf(token))).status).toBe(200);
      await t.identity.setMembership(organizationId, userId, 'member');
      expectError(await t.http().get('/api/webhook').set(cookieOf(token)), 403, 'no permission');
    });

    it('refuses a session on the request right after its membership is removed', async () => {
      const { token, organizationId, userId } = await t.member('admin');
      expect((await t.http().get('/api/webhook').set(cookieOf(token))).status).toBe(200);
      await t.dataSource.query('DELETE FROM members WHERE organization_id = ? AND user_id = ?', [organizationId, userId]);
      expectError(await t.http().get('/api/webhook').set(cookieOf(token)), 403, 'no organization');
    });
  });
});
