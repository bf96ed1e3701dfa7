import type { ExecutionContext } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { RouteMetadataReflector } from '../common/route-metadata.reflector';
import type { AppConfig } from '../config/app-config';
import { DomainError } from '../common/domain-error';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import { AuthGuard } from './auth.guard';
import { AUTH_POLICY, AuthPolicy } from './auth-policy';
import type { PlatformCaller, SessionCaller, WalletCaller } from '../identity/caller';
import type { Authenticator } from './authenticator';
import { ClientLimits } from '../rate-limit/client-limits';
import { MemoryThrottlerStorage } from '../rate-limit/memory-throttler.storage';

const ALLOWED_ORIGIN = 'https://console.example.com';
const SESSION_CALLER: SessionCaller = { kind: 'session', sessionKey: 'k', userId: 5, organizationId: 7, role: 'owner' };
const WALLET_CALLER: WalletCaller = { kind: 'wallet-extension', tokenKey: 'w', userId: 9 };
const PLATFORM_CALLER: PlatformCaller = { kind: 'platform', tokenKey: 'p', keyId: 3, organizations: null };
const LIMITS = { keyPrefix: 'test', windowMs: 60_000, authFailuresPerAddress: 3, perWalletToken: 2, perPlatformKey: 2 };
const ADDRESS = '203.0.113.5';

/** A route handler carrying `policy` on itself or on its controller, as the decorators put it. */
function route(policy: AuthPolicy | undefined, on: 'handler' | 'class' = 'handler') {
  const handler = () => undefined;
  class Controller {}
  if (policy) Reflect.defineMetadata(AUTH_POLICY, policy, on === 'handler' ? handler : Controller);
  return { handler, Controller };
}

function setUp(policy: AuthPolicy | undefined, on: 'handler' | 'class' = 'handler') {
  const authenticator = {
    session: vi.fn(async () => SESSION_CALLER),
    walletExtension: vi.fn(async () => WALLET_CALLER),
    platform: vi.fn(async () => PLATFORM_CALLER),
  };
  const config = { allowedOrigins: [ALLOWED_ORIGIN], rateLimits: LIMITS } as unknown as AppConfig;
  const limits = new ClientLimits(new MemoryThrottlerStorage(), config);
  const guard = new AuthGuard(new RouteMetadataReflector(), authenticator as unknown as Authenticator, limits, config);
  const { handler, Controller } = route(policy, on);
  /** `caller`: one a middleware already admitted the request as (authenticatedBody). */
  const activate = (method: string, headers: IncomingHttpHeaders = {}, ip = ADDRESS, caller?: unknown) => {
    const req: { method: string; headers: IncomingHttpHeaders; ip: string; caller?: unknown } = { method, headers, ip, caller };
    const context = {
      getHandler: () => handler,
      getClass: () => Controller,
      switchToHttp: () => ({ getRequest: () => req }),
    } as unknown as ExecutionContext;
    return { req, result: guard.canActivate(context) };
  };
  return { authenticator, activate, guard };
}

const SESSION_POLICY: AuthPolicy = { kind: 'session', roles: ['owner', 'admin'] };

describe('AuthGuard', () => {
  it('refuses a route that declares no policy with 401 unauthorized (fail closed), without authenticating', async () => {
    const { activate, authenticator } = setUp(undefined);
    expect(await rejectionOf(activate('GET', { cookie: 'x=y' }).result)).toEqual({ status: 401, body: { code: 'unauthorized' } });
    expect(authenticator.session).not.toHaveBeenCalled();
    expect(authenticator.walletExtension).not.toHaveBeenCalled();
  });

  it('lets anyone through a public route, without authenticating', async () => {
    const { activate, authenticator } = setUp({ kind: 'public' });
    await expect(activate('GET').result).resolves.toBe(true);
    expect(authenticator.session).not.toHaveBeenCalled();
  });

  it("authenticates a session route with the route's roles and puts the caller on the request", async () => {
    const { activate, authenticator } = setUp(SESSION_POLICY);
    const headers = { cookie: 'a=b' };
    const { req, result } = activate('GET', headers);
    await expect(result).resolves.toBe(true);
    expect(authenticator.session).toHaveBeenCalledWith(headers, ['owner', 'admin']);
    expect(req.caller).toBe(SESSION_CALLER);
  });

  it('reads the policy from the controller when the handler has none', async () => {
    const { activate, authenticator } = setUp(SESSION_POLICY, 'class');
    await expect(activate('GET').result).resolves.toBe(true);
    expect(authenticator.session).toHaveBeenCalledOnce();
  });

  it('authenticates a wallet-extension route with the bearer check only', async () => {
    const { activate, authenticator } = setUp({ kind: 'wallet-extension' });
    const { req, result } = activate('GET', { authorization: 'Bearer t' });
    await expect(result).resolves.toBe(true);
    expect(authenticator.walletExtension).toHaveBeenCalledOnce();
    expect(authenticator.session).not.toHaveBeenCalled();
    expect(req.caller).toBe(WALLET_CALLER);
  });

  it('passes on what the authenticator refuses', async () => {
    const { activate, authenticator } = setUp(SESSION_POLICY);
    authenticator.session.mockRejectedValueOnce(new DomainError(403, 'no permission'));
    expect(await rejectionOf(activate('GET').result)).toEqual({ status: 403, body: { code: 'no permission' } });
  });

  describe('a request admitted ahead of its body (authenticatedBody, POST /events)', () => {
    it("lets it through when the caller is of the route's kind, without authenticating or counting it again", async () => {
      const { activate, authenticator } = setUp({ kind: 'platform' });
      for (let i = 0; i <= LIMITS.perPlatformKey; i++) {
        await expect(activate('POST', { authorization: 'Bearer k' }, ADDRESS, PLATFORM_CALLER).result).resolves.toBe(true);
      }
      expect(authenticator.platform).not.toHaveBeenCalled();
    });

    it("authenticates it when the caller is of another kind than the route's", async () => {
      const { activate, authenticator } = setUp(SESSION_POLICY);
      const { req, result } = activate('GET', {}, ADDRESS, PLATFORM_CALLER);
      await expect(result).resolves.toBe(true);
      expect(authenticator.session).toHaveBeenCalledOnce();
      expect(req.caller).toBe(SESSION_CALLER);
    });

    it('admits with the same limits as the guard: 401s counted against the address, then 429 before any lookup', async () => {
      const { guard, authenticator } = setUp({ kind: 'platform' });
      authenticator.platform.mockRejectedValue(new DomainError(401, 'unauthorized'));
      const admit = () => guard.admit({ method: 'POST', headers: {}, ip: ADDRESS } as unknown as Request, { kind: 'platform' });
      const outcomes = [];
      for (let i = 0; i <= LIMITS.authFailuresPerAddress + 1; i++) outcomes.push((await rejectionOf(admit())).status);
      expect(outcomes).toEqual([401, 401, 401, 429, 429]);
      expect(authenticator.platform).toHaveBeenCalledTimes(LIMITS.authFailuresPerAddress + 1);
    });

    it('admits a known key, puts it on the request and counts it against its limit', async () => {
      const { guard } = setUp({ kind: 'platform' });
      const req = { method: 'POST', headers: {}, ip: ADDRESS } as unknown as Request;
      for (let i = 0; i < LIMITS.perPlatformKey; i++) await guard.admit(req, { kind: 'platform' });
      expect(req.caller).toBe(PLATFORM_CALLER);
      expect(await rejectionOf(guard.admit(req, { kind: 'platform' }))).toMatchObject({ status: 429 });
    });
  });

  describe('the Origin rule of session writes', () => {
    it.each(['POST', 'PATCH', 'DELETE', 'PUT'])(
      'refuses %s from an origin not listed with 403 forbidden origin, before authenticating',
      async (method) => {
        const { activate, authenticator } = setUp(SESSION_POLICY);
        expect(await rejectionOf(activate(method, { origin: 'https://evil.example' }).result)).toEqual({
          status: 403,
          body: { code: 'forbidden origin' },
        });
        expect(authenticator.session).not.toHaveBeenCalled();
      },
    );

    it('refuses the opaque origin "null" on a write', async () => {
      const { activate } = setUp(SESSION_POLICY);
      expect(await rejectionOf(activate('POST', { origin: 'null' }).result)).toEqual({ status: 403, body: { code: 'forbidden origin' } });
    });

    it('lets a write from a listed origin through to authentication', async () => {
      const { activate, authenticator } = setUp(SESSION_POLICY);
      await expect(activate('POST', { origin: ALLOWED_ORIGIN }).result).resolves.toBe(true);
      expect(authenticator.session).toHaveBeenCalledOnce();
    });

    it('lets a write without an Origin header through (not a browser)', async () => {
      const { activate } = setUp(SESSION_POLICY);
      await expect(activate('DELETE').result).resolves.toBe(true);
    });

    it.each(['GET', 'HEAD', 'OPTIONS'])('does not apply to %s, whatever the origin', async (method) => {
      const { activate } = setUp(SESSION_POLICY);
      await expect(activate(method, { origin: 'https://evil.example' }).result).resolves.toBe(true);
    });

    it('does not apply to wallet-extension routes', async () => {
      const { activate } = setUp({ kind: 'wallet-extension' });
      await expect(activate('POST', { origin: 'https://evil.example' }).result).resolves.toBe(true);
    });
  });

  describe('limits around authentication (ClientLimits)', () => {
    const UNAUTHORIZED = new DomainError(401, 'unauthorized');
    const RATE_LIMITED = { status: 429, body: { code: 'rate limited' } };

    /** `times` requests from `ip` that the authenticator refuses with 401; their outcomes. */
    async function failures(setup: ReturnType<typeof setUp>, times: number, ip = ADDRESS) {
      setup.authenticator.session.mockRejectedValue(UNAUTHORIZED);
      const outcomes = [];
      for (let i = 0; i < times; i++) outcomes.push(await rejectionOf(setup.activate('GET', {}, ip).result));
      setup.authenticator.session.mockResolvedValue(SESSION_CALLER);
      return outcomes;
    }

    it('answers the failed authentication past the per-address limit 429 rate limited with Retry-After', async () => {
      const outcomes = await failures(setUp(SESSION_POLICY), LIMITS.authFailuresPerAddress + 1);
      expect(outcomes.slice(0, -1).map((o) => o.status)).toEqual([401, 401, 401]);
      expect(outcomes.at(-1)).toEqual({ ...RATE_LIMITED, retryAfter: 60 });
    });

    it('refuses a blocked address before authenticating, even with valid credentials', async () => {
      const setup = setUp(SESSION_POLICY);
      await failures(setup, LIMITS.authFailuresPerAddress + 1);
      setup.authenticator.session.mockClear();
      expect(await rejectionOf(setup.activate('GET', { cookie: 'valid' }).result)).toMatchObject(RATE_LIMITED);
      expect(setup.authenticator.session).not.toHaveBeenCalled();
    });

    it('does not limit another address for the failures of one', async () => {
      const setup = setUp(SESSION_POLICY);
      await failures(setup, LIMITS.authFailuresPerAddress + 1);
      await expect(setup.activate('GET', {}, '198.51.100.7').result).resolves.toBe(true);
    });

    it('does not count successful authentications or refusals other than 401 against the address', async () => {
      const setup = setUp(SESSION_POLICY);
      for (let i = 0; i < LIMITS.authFailuresPerAddress * 2; i++) await setup.activate('GET').result;
      setup.authenticator.session.mockRejectedValue(new DomainError(403, 'no permission'));
      for (let i = 0; i < LIMITS.authFailuresPerAddress * 2; i++) await rejectionOf(setup.activate('GET').result);
      expect((await failures(setup, LIMITS.authFailuresPerAddress)).map((o) => o.status)).toEqual([401, 401, 401]);
    });

    it('counts failed wallet-extension authentications against the address too', async () => {
      const setup = setUp({ kind: 'wallet-extension' });
      setup.authenticator.walletExtension.mockRejectedValue(UNAUTHORIZED);
      const outcomes = [];
      for (let i = 0; i <= LIMITS.authFailuresPerAddress; i++) outcomes.push((await rejectionOf(setup.activate('GET').result)).status);
      expect(outcomes).toEqual([401, 401, 401, 429]);
    });

    it('answers a wallet token used past its limit 429 rate limited, after authenticating it', async () => {
      const setup = setUp({ kind: 'wallet-extension' });
      for (let i = 0; i < LIMITS.perWalletToken; i++) await expect(setup.activate('GET').result).resolves.toBe(true);
      expect(await rejectionOf(setup.activate('GET').result)).toEqual({ ...RATE_LIMITED, retryAfter: 60 });
      expect(setup.authenticator.walletExtension).toHaveBeenCalledTimes(LIMITS.perWalletToken + 1);
    });

    it('authenticates a platform route with the platform key check only', async () => {
      const setup = setUp({ kind: 'platform' });
      const { req, result } = setup.activate('POST', { authorization: 'Bearer k' });
      await expect(result).resolves.toBe(true);
      expect(req.caller).toBe(PLATFORM_CALLER);
      expect([setup.authenticator.session, setup.authenticator.walletExtension].map((fn) => fn.mock.calls.length)).toEqual([0, 0]);
    });

    it('answers a platform key used past its limit 429 rate limited, after authenticating it', async () => {
      const setup = setUp({ kind: 'platform' });
      for (let i = 0; i < LIMITS.perPlatformKey; i++) await expect(setup.activate('POST').result).resolves.toBe(true);
      expect(await rejectionOf(setup.activate('POST').result)).toEqual({ ...RATE_LIMITED, retryAfter: 60 });
    });

    it('counts failed platform-key authentications against the address', async () => {
      const setup = setUp({ kind: 'platform' });
      setup.authenticator.platform.mockRejectedValue(UNAUTHORIZED);
      const outcomes = [];
      for (let i = 0; i <= LIMITS.authFailuresPerAddress; i++) outcomes.push((await rejectionOf(setup.activate('POST').result)).status);
      expect(outcomes).toEqual([401, 401, 401, 429]);
    });

    it('does not count session requests against any wallet token', async () => {
      const setup = setUp(SESSION_POLICY);
      for (let i = 0; i <= LIMITS.perWalletToken * 2; i++) await expect(setup.activate('GET').result).resolves.toBe(true);
    });
  });
});
