/** How an attempt's outcome moves its webhook's in-flight limit (classify, attempt-outcome.ts, says which). */
export type LimitSignal = 'in time' | 'congestion' | 'neutral';

/** The limit a webhook starts with, per instance (docs/api.md 10.10: "a few"). */
export const INITIAL_LIMIT = 4;

/**
 * A webhook's limit of attempts in flight on this instance (docs/api.md 10.10), as TCP's
 * congestion window: it starts at INITIAL_LIMIT and, while attempts succeed in time, doubles
 * with every round of attempts (slow start) until the first sign of congestion, then grows by
 * one per round (additive increase); a timeout, a connection or resolver failure, a 429 or a 5xx
 * halves it (multiplicative decrease), at most once per round: attempts that started before the
 * last decrease were sent at the old limit and say nothing new. It grows only while the webhook
 * uses all of it, so an idle webhook's limit does not creep up, and never passes `max`
 * (DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK). Little's law is the point: 100 events/s to a receiver
 * that answers in 250 ms need 25 in flight.
 */
export class AdaptiveLimit {
  private value: number;
  private slowStart = true;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly max: number) {
    this.value = Math.min(INITIAL_LIMIT, max);
  }

  /** Attempts this webhook may have in flight now. */
  get current(): number {
    return Math.max(1, Math.floor(this.value));
  }

  /**
   * An attempt that started at `startedAt` ended with `signal` at `now`; `saturated`: when it
   * started, the webhook used its whole limit (or had more deliveries waiting).
   */
  observe(signal: LimitSignal, startedAt: number, saturated: boolean, now: number): void {
    if (signal === 'in time') {
      if (!saturated) return;
      this.value = Math.min(this.max, this.slowStart ? this.value + 1 : this.value + 1 / this.value);
    } else if (signal === 'congestion') {
      if (startedAt < this.lastDecreaseAt) return;
      this.value = Math.max(1, this.value / 2);
      this.slowStart = false;
      this.lastDecreaseAt = now;
    }
  }
}
