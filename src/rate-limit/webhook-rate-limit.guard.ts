import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, ThrottlerLimitDetail } from '@nestjs/throttler';
import { Errors } from '../http/api-error';

/**
 * @nestjs/throttler's guard with this service's answer: 429 `{"code":"rate limited"}` and a
 * plain Retry-After. Runs after the global AuthGuard, so it counts per session and per
 * organization (the trackers of RateLimitModule).
 */
@Injectable()
export class WebhookRateLimitGuard extends ThrottlerGuard {
  protected override async throwThrottlingException(_context: ExecutionContext, detail: ThrottlerLimitDetail): Promise<void> {
    throw Errors.rateLimited(Math.max(detail.timeToBlockExpire, 1));
  }
}
