import { ExecutionContext, Injectable } from '@nestjs/common';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerModuleOptions,
  ThrottlerStorage,
} from '@nestjs/throttler';
import { RouteMetadataReflector } from '../common/route-metadata.reflector';
import { Errors } from '../common/domain-error';

/**
 * The limits of the admin console's routes (webhooks, their deliveries, the audit trail): per
 * session and per organization (the trackers of RateLimitModule), one counter each across all
 * of them. @nestjs/throttler's guard with this service's answer: 429 `{"code":"rate limited"}`
 * and a plain Retry-After. Runs after the global AuthGuard, which puts the session on the
 * request. Its route metadata is read once per route.
 */
@Injectable()
export class SessionRateLimitGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: RouteMetadataReflector,
  ) {
    super(options, storage, reflector);
  }

  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw Errors.rateLimited(Math.max(detail.timeToBlockExpire, 1));
  }
}
