import type { DeliveryState } from '../delivery.model';
import type { ClassifiedOutcome } from './attempt-outcome';

/** At most this long a Retry-After may push the next attempt (docs/api.md 10.5). */
export const MAX_RETRY_AFTER_SECONDS = 24 * 3600;
/** ±10 % (docs/api.md 10.5). */
const JITTER = 0.1;

/** What follows an attempt: the delivery's state, and when a pending one is due again. */
export interface NextStep {
  readonly state: DeliveryState;
  readonly nextAttemptAt: Date | null;
}

/**
 * docs/api.md 10.5: a 2xx succeeds; a 410 ends the retries; otherwise the next attempt waits the
 * next delay of DELIVERY_RETRY_SCHEDULE, ±10 %, lengthened by a 429's or 503's Retry-After (at
 * most 24 h); after the last delay's attempt, the delivery has failed.
 */
export class RetryPolicy {
  constructor(
    private readonly scheduleSeconds: readonly number[],
    private readonly random: () => number = Math.random,
  ) {}

  /** `attemptsMade` counts the attempt that produced `outcome`. */
  after(attemptsMade: number, outcome: Pick<ClassifiedOutcome, 'ok' | 'status' | 'retryAfterSeconds'>, now: Date): NextStep {
    if (outcome.ok) return { state: 'succeeded', nextAttemptAt: null };
    if (outcome.status === 410 || attemptsMade > this.scheduleSeconds.length) return { state: 'failed', nextAttemptAt: null };
    let delayMs = this.scheduleSeconds[attemptsMade - 1] * 1000 * (1 - JITTER + 2 * JITTER * this.random());
    if ((outcome.status === 429 || outcome.status === 503) && outcome.retryAfterSeconds !== undefined) {
      delayMs = Math.max(delayMs, Math.min(outcome.retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000);
    }
    return { state: 'pending', nextAttemptAt: new Date(now.getTime() + Math.round(delayMs)) };
  }
}
