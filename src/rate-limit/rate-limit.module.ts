import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Logger } from 'pino';
import type { SessionCaller } from '../identity/caller';
import { RouteMetadataReflector } from '../common/route-metadata.reflector';
import { AppConfig } from '../config/app-config';
import { PINO } from '../logging/pino.provider';
import { ClientLimits } from './client-limits';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { SessionRateLimitGuard } from './session-rate-limit.guard';

/** The caller the AuthGuard put on the request (the throttler types requests loosely). */
const sessionOf = (req: Record<string, unknown>) => req.caller as SessionCaller;

/**
 * Rate limits (RATE_LIMIT_*), each a fixed window, in Redis when REDIS_URL is set (shared by
 * the instances), else in memory: the webhook operations per session and per organization
 * (one counter per caller across all webhook routes), and ClientLimits' failed
 * authentications per client address and provisioning requests per wallet token.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [AppConfig, PINO],
      useFactory: ({ rateLimits }: AppConfig, logger: Logger) => ({
        throttlers: [
          { name: 'session', ttl: rateLimits.windowMs, limit: rateLimits.perSession, getTracker: (req) => sessionOf(req).sessionKey },
          {
            name: 'organization',
            ttl: rateLimits.windowMs,
            limit: rateLimits.perOrganization,
            getTracker: (req) => String(sessionOf(req).organizationId),
          },
        ],
        generateKey: (_context, tracker, name) => `${rateLimits.keyPrefix}:${name}:${tracker}`,
        setHeaders: false,
        storage:
          rateLimits.redisUrl === undefined ? new MemoryThrottlerStorage() : RedisThrottlerStorage.connect(rateLimits.redisUrl, logger),
      }),
    }),
  ],
  providers: [SessionRateLimitGuard, ClientLimits, RouteMetadataReflector],
  exports: [ThrottlerModule, SessionRateLimitGuard, ClientLimits, RouteMetadataReflector],
})
export class RateLimitModule {}
