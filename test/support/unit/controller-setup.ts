import type { Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Request } from 'express';
import { Test } from '@nestjs/testing';
import { ThrottlerModule, ThrottlerStorage } from '@nestjs/throttler';
import request from 'supertest';
import type TestAgent from 'supertest/lib/agent';
import { type Mocked, vi } from 'vitest';
import { AuthGuard } from '../../../src/auth/auth.guard';
import { Authenticator } from '../../../src/auth/authenticator';
import { RouteMetadataReflector } from '../../../src/common/route-metadata.reflector';
import { AppConfig } from '../../../src/config/app-config';
import { ApiExceptionFilter } from '../../../src/http/api-exception.filter';
import { ApiExpressAdapter } from '../../../src/http/http-adapter';
import { BODY_LIMIT, JSON_TYPES, jsonBody } from '../../../src/http/json-body';
import type { PlatformCaller, SessionCaller, WalletCaller } from '../../../src/identity/caller';
import { createPino, PINO } from '../../../src/logging/pino.provider';
import { ClientLimits } from '../../../src/rate-limit/client-limits';
import { SessionRateLimitGuard } from '../../../src/rate-limit/session-rate-limit.guard';
import { Tracing } from '../../../src/tracing/tracing';
import { AddressPolicy, PUBLIC_ONLY } from '../../../src/url-safety/public-address';
import { UrlResolution } from '../../../src/url-safety/url-resolution';

/*
 * Controller tests without the whole app (immich's controllerSetup): the controllers with the real
 * global AuthGuard, their own guards and pipes and the real exception filter, over Express; the
 * Authenticator (who calls), the limits and every service mocked. No database, no DNS: a request
 * takes a millisecond or two, so the order of checks and the auth policy of every route can be
 * pinned one behaviour per test.
 */

/** The callers the mocked Authenticator finds, unless a test says otherwise. */
export const OWNER: SessionCaller = { kind: 'session', sessionKey: 'session-key', userId: 7, organizationId: 3, role: 'owner' };
export const WALLET: WalletCaller = { kind: 'wallet-extension', tokenKey: 'wallet-key', userId: 7 };
export const PLATFORM: PlatformCaller = { kind: 'platform', tokenKey: 'platform-key', keyId: 5, organizations: null };
/** The one ALLOWED_ORIGINS entry. */
export const ALLOWED_ORIGIN = 'https://console.example.com';

/** Every method of `type` a vi.fn() answering undefined, the instance never built (its dependencies never needed). */
export function automock<T>(type: Type<T>): Mocked<T> {
  const methods = Object.getOwnPropertyNames(type.prototype).filter(
    (name) => name !== 'constructor' && typeof Object.getOwnPropertyDescriptor(type.prototype, name)?.value === 'function',
  );
  return Object.fromEntries(methods.map((name) => [name, vi.fn()])) as Mocked<T>;
}

export interface ControllerContext {
  /** A client of the application (supertest). */
  readonly http: () => TestAgent;
  /** Resolves OWNER, WALLET and PLATFORM by default. */
  readonly authenticator: Mocked<Pick<Authenticator, 'session' | 'walletExtension' | 'platform'>>;
  readonly limits: Mocked<ClientLimits>;
  /** The session rate limit's counter: an answer with `isBlocked` is a 429. */
  readonly throttle: Mocked<ThrottlerStorage>;
  /** The mock the application has for this service (or any other dependency of the controllers). */
  readonly get: <T>(type: Type<T>) => Mocked<T>;
  readonly close: () => Promise<void>;
}

const NOT_BLOCKED = { totalHits: 1, timeToExpire: 60_000, isBlocked: false, timeToBlockExpire: 0 };

/** `controllers` on a testing module, their dependencies automocked; `vi.resetAllMocks()` between tests restores the defaults. */
export async function controllerSetup(controllers: Type[]): Promise<ControllerContext> {
  const authenticator = {
    session: vi.fn(async () => OWNER),
    walletExtension: vi.fn(async () => WALLET),
    platform: vi.fn(async () => PLATFORM),
  };
  const limits = automock(ClientLimits);
  const throttle = { increment: vi.fn(async () => NOT_BLOCKED) };
  // One mock per type: a pipe that injects a service (a push's, which looks its card up) gets the controller's.
  const mocks = new Map<Type, unknown>();
  const mockOf = (type: Type) => mocks.get(type) ?? mocks.set(type, automock(type)).get(type);
  const moduleRef = await Test.createTestingModule({
    imports: [ThrottlerModule.forRoot({ throttlers: [{ ttl: 60_000, limit: 100 }], storage: throttle })],
    controllers,
    providers: [
      { provide: APP_GUARD, useClass: AuthGuard },
      { provide: APP_FILTER, useClass: ApiExceptionFilter },
      RouteMetadataReflector,
      SessionRateLimitGuard,
      { provide: Authenticator, useValue: authenticator },
      { provide: ClientLimits, useValue: limits },
      { provide: AppConfig, useValue: { allowedOrigins: [ALLOWED_ORIGIN] } },
      { provide: AddressPolicy, useValue: PUBLIC_ONLY },
      // The URL pipes resolve the names beside a broken URL: none is wrong here unless a test says so.
      { provide: UrlResolution, useValue: { check: vi.fn(async () => ({ kind: 'ok' })) } },
      { provide: PINO, useValue: createPino('silent') },
    ],
  })
    .useMocker((token) => (typeof token === 'function' ? mockOf(token as Type) : undefined))
    .compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(new ApiExpressAdapter(10_000), { bodyParser: false, logger: false });
  // What the request log does in the application: the request's trace context (here, never exported).
  const tracing = new Tracing({ tracing: { exportUrl: undefined, serviceName: 'test' } } as AppConfig);
  app.use((req: Request, _res: unknown, next: () => void) => {
    req.trace = tracing.requestSpan(req.method, req.headers).context;
    next();
  });
  app.use(jsonBody(BODY_LIMIT, JSON_TYPES));
  await app.init();
  return {
    http: () => request(app.getHttpServer()),
    authenticator,
    limits,
    throttle: throttle as Mocked<ThrottlerStorage>,
    get: <T>(type: Type<T>) => app.get(type) as Mocked<T>,
    close: () => app.close(),
  };
}
