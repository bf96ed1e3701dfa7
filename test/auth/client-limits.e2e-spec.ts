import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { AUTH_FAILURES_PER_ADDRESS, CLIENT_ENV, expectRateLimited, PER_WALLET_TOKEN, WINDOW_SECONDS } from '../support/rate-limits';
import { TestApp } from '../support/test-app';

/*
 * The limits around authentication (docs/decisions.md, *Limits around authentication*): failed
 * authentications per client address, checked before any credential is looked up, with
 * X-Forwarded-For honoured only from TRUSTED_PROXIES; and card provisioning requests per wallet
 * token. In memory here; shared through Redis in redis-rate-limit.e2e-spec.ts. Each test has its
 * own instance: a blocked address stays blocked for the window.
 */

const WEBHOOKS = '/api/webhook';
const PROVISIONING = '/api/card/provisioning';
/** A session token of the right shape that no session has. */
const bogusCookie = (): string => `__Secure-auth.session_token=${randomBytes(32).toString('base64url')}`;

describeEachDatabase('limits around authentication', (kind: DatabaseKind) => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  const start = async (env: Record<string, string> = {}): Promise<TestApp> =>
    (t = await TestApp.start(kind, { env: { ...CLIENT_ENV, ...env } }));

  async function failAuthentication(app: TestApp, times: number, forwardedFor?: (i: number) => string): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) {
      const req = app.http().get(WEBHOOKS).set('Cookie', bogusCookie());
      if (forwardedFor) req.set('X-Forwarded-For', forwardedFor(i));
      statuses.push((await req).status);
    }
    return statuses;
  }

  it('answers the failed authentication past the per-address limit 429 rate limited with Retry-After', async () => {
    const app = await start();
    expect(await failAuthentication(app, AUTH_FAILURES_PER_ADDRESS)).toEqual(Array(AUTH_FAILURES_PER_ADDRESS).fill(401));
    expectRateLimited(await app.http().get(WEBHOOKS).set('Cookie', bogusCookie()), WINDOW_SECONDS);
  });

  it('refuses a blocked address before authentication: a valid session and a valid wallet token from it get 429', async () => {
    const app = await start();
    const { cookie } = await app.member('owner');
    const holder = await app.cardHolder({ provisioningId: 'prov-blocked', provisioningSecret: 'pss-blocked' });
    await failAuthentication(app, AUTH_FAILURES_PER_ADDRESS + 1);
    expectRateLimited(await app.http().get(WEBHOOKS).set('Cookie', cookie), WINDOW_SECONDS);
    expectRateLimited(await app.http().get(PROVISIONING).set('Authorization', `Bearer ${holder.token}`), WINDOW_SECONDS);
  });

  it('does not count requests that authenticate, however many', async () => {
    const app = await start();
    const { cookie } = await app.member('owner');
    for (let i = 0; i < AUTH_FAILURES_PER_ADDRESS * 3; i++) expect((await app.http().get(WEBHOOKS).set('Cookie', cookie)).status).toBe(200);
    expect(await failAuthentication(app, AUTH_FAILURES_PER_ADDRESS)).toEqual(Array(AUTH_FAILURES_PER_ADDRESS).fill(401));
  });

  it('ignores X-Forwarded-For without TRUSTED_PROXIES: the connection peer is the client', async () => {
    const app = await start();
    await failAuthentication(app, AUTH_FAILURES_PER_ADDRESS, (i) => `203.0.113.${i + 1}`);
    const res = await app.http().get(WEBHOOKS).set('Cookie', bogusCookie()).set('X-Forwarded-For', '198.51.100.99');
    expectRateLimited(res, WINDOW_SECONDS);
  });

  it('counts per forwarded client behind a trusted proxy: one blocked client does not block another', async () => {
    const app = await start({ TRUSTED_PROXIES: '127.0.0.1,::1' });
    const { cookie } = await app.member('owner');
    await failAuthentication(app, AUTH_FAILURES_PER_ADDRESS + 1, () => '203.0.113.7');
    expectRateLimited(await app.http().get(WEBHOOKS).set('Cookie', cookie).set('X-Forwarded-For', '203.0.113.7'), WINDOW_SECONDS);
    expect((await app.http().get(WEBHOOKS).set('Cookie', cookie).set('X-Forwarded-For', '203.0.113.8')).status).toBe(200);
  });

  it('answers provisioning past the per-token limit 429 rate limited, no-store, while another token is served', async () => {
    const app = await start();
    const holder = await app.cardHolder({ provisioningId: 'prov-limit', provisioningSecret: 'pss-limit' });
    const other = await app.cardHolder({ provisioningId: 'prov-other', provisioningSecret: 'pss-other' });
    const provision = (token: string) => app.http().get(PROVISIONING).set('Authorization', `Bearer ${token}`);
    for (let i = 0; i < PER_WALLET_TOKEN; i++) expect((await provision(holder.token)).status).toBe(200);
    const limited = await provision(holder.token);
    expectRateLimited(limited, WINDOW_SECONDS);
    expect(limited.text).not.toContain('pss-limit');
    expect((await provision(other.token)).body).toEqual({ id: 'prov-other', secret: 'pss-other' });
  });
});
