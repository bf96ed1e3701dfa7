import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import type { Logger } from 'pino';
import type { SessionCaller } from '../auth/auth-policy';
import { RouteMetadataReflector } from '../common/route-metadata.reflector';
import { AppConfig } from '../config/app-config';
import { PINO } from '../logging/pino.provider';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RedisThrottlerStorage } from './redis-throttler.storage';
import { WebhookRateLimitGuard } from './webhook-rate-limit.guard';

/** The caller the AuthGuard put on the request (the throttler types requests loosely). */
const sessionOf = (req: Record<string, unknown>) => req.caller as SessionCaller;

/**
 * Rate limits of the webhook operations (RATE_LIMIT_*): per session and per organization,
 * each a fixed window; one counter per caller across all webhook routes, in Redis when
 * REDIS_URL is set (shared by the instances), else in memory.
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
        storage: rateLimits.redisUrl === undefined ? new MemoryThrottlerStorage() : RedisThrottlerStorage.connect(rateLimits.redisUrl, logger),
      }),
    }),
  ],
  providers: [WebhookRateLimitGuard, RouteMetadataReflector],
  exports: [ThrottlerModule, WebhookRateLimitGuard, RouteMetadataReflector],
})
export class RateLimitModule {}
