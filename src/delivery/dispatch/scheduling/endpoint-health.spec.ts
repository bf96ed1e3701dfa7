import { describe, expect, it } from 'vitest';
import {
  breakerStateAt,
  cooldownMs,
  DISABLE_AFTER_ATTEMPTS,
  EndpointHealth,
  EndpointSignal,
  healthAfter,
  healthAfterAll,
  HEALTHY,
  HealthPolicy,
  isHealthy,
  MAX_COOLDOWN_MS,
} from './endpoint-health';

const DAY = 24 * 3600 * 1000;
const POLICY: HealthPolicy = { breakerThreshold: 3, cooldownMs: 1000, disableAfterMs: 5 * DAY };
// The signals of attempts as classify (attempt-outcome.ts) gives them: a timeout, a connection or
// resolver failure is unreachable; an HTTP status or a TLS error reachable; a blocked address untried.
const UNREACHABLE: EndpointSignal = 'unreachable';
const REACHABLE: EndpointSignal = 'reachable';
const OK: EndpointSignal = 'success';

/** The health after a run of attempts, one a second from t = 0. */
function after(signals: EndpointSignal[], from: EndpointHealth = HEALTHY): EndpointHealth {
  return signals.reduce((health, signal, i) => healthAfter(health, signal, i * 1000, POLICY).health, from);
}

describe('the circuit breaker', () => {
  it('stays closed below the threshold of consecutive timeouts', () => {
    expect(breakerStateAt(after([UNREACHABLE, UNREACHABLE]).breakerOpenUntil, 2000)).toBe('closed');
  });

  it('opens at the threshold for the first cool-down, holding attempts back until then', () => {
    const health = after([UNREACHABLE, UNREACHABLE, UNREACHABLE]);
    expect(health.breakerOpenUntil).toBe(2000 + POLICY.cooldownMs);
    expect(breakerStateAt(health.breakerOpenUntil, 2999)).toBe('open');
  });

  it('lets one attempt probe once the cool-down is over', () => {
    const health = after([UNREACHABLE, UNREACHABLE, UNREACHABLE]);
    expect(breakerStateAt(health.breakerOpenUntil, health.breakerOpenUntil!)).toBe('probe');
  });

  it('doubles the cool-down with every failed probe, up to an hour', () => {
    expect([3, 4, 5].map((n) => cooldownMs(n, POLICY))).toEqual([1000, 2000, 4000]);
    expect(cooldownMs(40, POLICY)).toBe(MAX_COOLDOWN_MS);
  });

  it('closes after a successful probe', () => {
    const open = after([UNREACHABLE, UNREACHABLE, UNREACHABLE]);
    expect(healthAfter(open, OK, 9000, POLICY).health).toEqual(HEALTHY);
  });

  it('closes when the receiver answers, even with an error status: it is reachable', () => {
    const open = after([UNREACHABLE, UNREACHABLE, UNREACHABLE]);
    const { health } = healthAfter(open, REACHABLE, 9000, POLICY);
    expect([health.breakerFailures, breakerStateAt(health.breakerOpenUntil, 9000)]).toEqual([0, 'closed']);
  });

  it('closes on a TLS error too: the receiver answered the connection', () => {
    const open = after([UNREACHABLE, UNREACHABLE, UNREACHABLE]);
    expect(breakerStateAt(healthAfter(open, REACHABLE, 9000, POLICY).health.breakerOpenUntil, 9000)).toBe('closed');
  });

  it('counts resolver failures: a name server that stopped answering opens the breaker like a receiver that does not', () => {
    expect(after([UNREACHABLE, UNREACHABLE, UNREACHABLE]).breakerOpenUntil).toBe(2000 + POLICY.cooldownMs);
  });

  it('leaves the count as it was for a blocked address: the receiver was never tried', () => {
    const counting = after([UNREACHABLE, UNREACHABLE]);
    expect(healthAfter(counting, 'untried', 5000, POLICY).health.breakerFailures).toBe(2);
  });

  it('leaves an open breaker as it was for unreached failures', () => {
    const open = after([UNREACHABLE, UNREACHABLE, UNREACHABLE]);
    expect(healthAfter(open, 'untried', 2500, POLICY).health).toMatchObject({
      breakerFailures: open.breakerFailures,
      breakerOpenUntil: open.breakerOpenUntil,
    });
  });

  it('does not lengthen the cool-down for attempts that were in flight when the breaker opened', () => {
    const open = after([UNREACHABLE, UNREACHABLE, UNREACHABLE]);
    const { health } = healthAfter(open, UNREACHABLE, 2500, POLICY);
    expect([health.breakerFailures, health.breakerOpenUntil]).toEqual([open.breakerFailures, open.breakerOpenUntil]);
  });

  it("counts the probe's failure, opening the breaker again for twice as long", () => {
    const open = after([UNREACHABLE, UNREACHABLE, UNREACHABLE]);
    const { health } = healthAfter(open, UNREACHABLE, 4000, POLICY, true);
    expect([health.breakerFailures, health.breakerOpenUntil]).toEqual([4, 4000 + 2 * POLICY.cooldownMs]);
  });
});

describe('disabling', () => {
  /** Failing since t = 0, with one attempt short of `attempts`: the next failure is the attempts-th. */
  const failingFor = (attempts: number) => ({ failingSince: 0, failedAttempts: attempts - 1, breakerFailures: 0, breakerOpenUntil: null });

  it('disables after DELIVERY_DISABLE_AFTER_DAYS of failures and at least 10 attempts', () => {
    expect(healthAfter(failingFor(DISABLE_AFTER_ATTEMPTS), REACHABLE, 5 * DAY, POLICY).disable).toBe(true);
  });

  it('does not disable before the days have passed, however many attempts failed', () => {
    expect(healthAfter(failingFor(100), REACHABLE, 5 * DAY - 1, POLICY).disable).toBe(false);
  });

  it('does not disable with fewer than 10 failed attempts, however long', () => {
    expect(healthAfter(failingFor(DISABLE_AFTER_ATTEMPTS - 1), REACHABLE, 30 * DAY, POLICY).disable).toBe(false);
  });

  it('disables after 10 failed attempts when the days are 0', () => {
    const run = Array.from({ length: DISABLE_AFTER_ATTEMPTS }, () => REACHABLE);
    const last = after(run.slice(0, -1));
    expect(healthAfter(last, run.at(-1)!, 9000, { ...POLICY, disableAfterMs: 0 }).disable).toBe(true);
  });

  it('starts the run again after a success', () => {
    const health = after([REACHABLE, REACHABLE, OK, REACHABLE]);
    expect([health.failingSince, health.failedAttempts]).toEqual([3000, 1]);
  });
});

describe('healthAfterAll', () => {
  it('applies a batch of attempts in the order they were made', () => {
    const events = [
      { signal: OK, at: 3000, probe: false },
      { signal: UNREACHABLE, at: 1000, probe: false },
      { signal: UNREACHABLE, at: 2000, probe: false },
    ];
    expect(healthAfterAll(HEALTHY, events, POLICY)).toEqual({ health: HEALTHY, disable: false });
  });

  it('disables when any attempt of the batch does', () => {
    const failing = { failingSince: 0, failedAttempts: DISABLE_AFTER_ATTEMPTS - 1, breakerFailures: 0, breakerOpenUntil: null };
    const events = [
      { signal: REACHABLE, at: 5 * DAY, probe: false },
      { signal: REACHABLE, at: 5 * DAY + 1, probe: false },
    ];
    expect(healthAfterAll(failing, events, POLICY).disable).toBe(true);
  });
});

it('leaves the health as it was for an attempt that could not be made (internal error)', () => {
  const health = after([UNREACHABLE]);
  expect(healthAfter(health, 'ours', 5000, POLICY)).toEqual({ health, disable: false });
});

it('calls a webhook healthy only with no failure, no run and a closed breaker', () => {
  expect(isHealthy(HEALTHY)).toBe(true);
  expect(isHealthy(after([REACHABLE]))).toBe(false);
});
