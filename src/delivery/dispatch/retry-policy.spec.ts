import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_SECONDS, RetryPolicy } from './retry-policy';

const NOW = new Date('2026-01-01T00:00:00Z');
/** A failed attempt as classify gives it: an answer's status, or none (a timeout). */
const failed = (status: number | null, retryAfterSeconds?: number) => ({ ok: false, status, retryAfterSeconds });
const delaySeconds = (step: { nextAttemptAt: Date | null }) => (step.nextAttemptAt!.getTime() - NOW.getTime()) / 1000;

describe('RetryPolicy', () => {
  const midway = new RetryPolicy([5, 300], () => 0.5);

  it('ends a delivery that got a 2xx as succeeded', () => {
    expect(midway.after(1, { ok: true, status: 204 }, NOW)).toEqual({
      state: 'succeeded',
      nextAttemptAt: null,
    });
  });

  it('waits the schedule delay for the attempt that failed', () => {
    expect([delaySeconds(midway.after(1, failed(500), NOW)), delaySeconds(midway.after(2, failed(500), NOW))]).toEqual([5, 300]);
  });

  it('jitters the delay by at most 10 % either way', () => {
    expect(delaySeconds(new RetryPolicy([100], () => 0).after(1, failed(500), NOW))).toBe(90);
    expect(delaySeconds(new RetryPolicy([100], () => 0.999999).after(1, failed(500), NOW))).toBeCloseTo(110, 3);
  });

  it('fails the delivery once the last delay has been waited', () => {
    expect(midway.after(3, failed(500), NOW)).toEqual({ state: 'failed', nextAttemptAt: null });
  });

  it('stops at a 410', () => {
    expect(midway.after(1, failed(410), NOW)).toEqual({ state: 'failed', nextAttemptAt: null });
  });

  it.each([429, 503])('lengthens the wait to a %i Retry-After', (status) => {
    expect(delaySeconds(midway.after(1, failed(status, 60), NOW))).toBe(60);
  });

  it('never shortens the wait to a Retry-After', () => {
    expect(delaySeconds(midway.after(2, failed(503, 1), NOW))).toBe(300);
  });

  it('ignores a Retry-After on other statuses', () => {
    expect(delaySeconds(midway.after(1, failed(500, 60), NOW))).toBe(5);
  });

  it('caps a Retry-After at 24 hours', () => {
    expect(delaySeconds(midway.after(1, failed(429, 10 * MAX_RETRY_AFTER_SECONDS), NOW))).toBe(MAX_RETRY_AFTER_SECONDS);
  });

  it('fails at once with an empty schedule', () => {
    expect(new RetryPolicy([]).after(1, failed(500), NOW).state).toBe('failed');
  });
});
