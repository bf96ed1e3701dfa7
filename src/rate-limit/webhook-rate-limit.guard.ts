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
 * @nestjs/throttler's guard with this service's answer: 429 `{"code":"rate limited"}` and a
 * plain Retry-After. Runs after the global AuthGuard, so it counts per session and per
 * organization (the trackers of RateLimitModule). Its route metadata is read once per route.
 */
@Injectable()
export class WebhookRateLimitGuard extends ThrottlerGuard {
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
