/** The send times the limiter gives, and where its next free slot starts if all of them are used. */
export interface RateSlots {
  /** The first slot; the i-th is `start + i * intervalMs`. */
  readonly start: number;
  readonly intervalMs: number;
  readonly count: number;
}

/**
 * A webhook's rate limit (docs/api.md 10.10) as evenly spaced slots, GCRA-style: the next
 * slot is stored (webhook_health.rate_next_at, shared by every instance and taken under a row
 * lock), each delivery takes one, and slots are handed out only within `horizonMs` of now, so
 * that claimed deliveries wait for their slot briefly, never for long. No two deliveries are
 * closer than 1/rate seconds, so no window of a second holds more than `rate` of them.
 */
export function rateSlots(nextFreeAt: number | null, now: number, rate: number, want: number, horizonMs: number): RateSlots {
  const intervalMs = 1000 / rate;
  const start = Math.max(now, nextFreeAt ?? now);
  const fit = start > now + horizonMs ? 0 : Math.floor((now + horizonMs - start) / intervalMs) + 1;
  return { start, intervalMs, count: Math.max(0, Math.min(want, fit)) };
}

/** The limiter's next free slot once `used` of the slots were taken. */
export const nextFreeSlot = (slots: RateSlots, used: number): number => slots.start + used * slots.intervalMs;

/**
 * How long after its slot a delivery may still be sent: half the interval, within 25 ms and
 * 250 ms. One that waited longer (its webhook's attempts in flight, every place taken) goes back
 * to the queue for a later slot rather than going out beside the next slot's delivery: a late
 * send is never closer than half an interval to the next (at rates up to 20 a second; above,
 * within 25 ms of its slot), so a second holds no more than `rate` of them, and at most one more
 * at its edges. Large enough that a send is rarely late by the clock's own timers.
 */
export const slotGraceMs = (intervalMs: number): number => Math.min(250, Math.max(25, intervalMs / 2));
