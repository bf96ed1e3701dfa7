/** A webhook's endpoint as the dispatcher tracks it (table webhook_health; no row: HEALTHY). Times in ms since the epoch. */
export interface EndpointHealth {
  /** The first failed attempt since the last successful one (or since the webhook was enabled). */
  readonly failingSince: number | null;
  readonly failedAttempts: number;
  /** Consecutive attempts that failed by timeout, connection or resolver failure. */
  readonly breakerFailures: number;
  /** Null: the breaker is closed. Else attempts are held back until then, when one probes. */
  readonly breakerOpenUntil: number | null;
}

export const HEALTHY: EndpointHealth = { failingSince: null, failedAttempts: 0, breakerFailures: 0, breakerOpenUntil: null };

/** docs/api.md 10.10: disabling takes at least this many failed attempts, besides the days. */
export const DISABLE_AFTER_ATTEMPTS = 10;
/** However long an endpoint keeps failing, a probe is made at least this often. */
export const MAX_COOLDOWN_MS = 3_600_000;

export interface HealthPolicy {
  /** Consecutive timeouts, connection or resolver failures that open the breaker. */
  readonly breakerThreshold: number;
  /** The first cool-down; it doubles with every failed probe, up to MAX_COOLDOWN_MS. */
  readonly cooldownMs: number;
  /** A webhook failing this long (and DISABLE_AFTER_ATTEMPTS attempts) is disabled. */
  readonly disableAfterMs: number;
}

export type BreakerState = 'closed' | 'open' | 'probe';

/**
 * What an attempt tells its endpoint's health (classify, attempt-outcome.ts, says which):
 * `success` clears it; `unreachable` (the receiver did not answer, or its name did not resolve)
 * counts toward the breaker; `reachable` (a failure that is an answer: an HTTP status, a TLS
 * handshake) closes it; `untried` (a blocked address) leaves it; every failure extends the run
 * that disabling looks at; `ours` (an attempt we could not make) says nothing about the endpoint.
 */
export type EndpointSignal = 'success' | 'unreachable' | 'reachable' | 'untried' | 'ours';

export const isHealthy = (health: EndpointHealth): boolean =>
  health.failingSince === null && health.failedAttempts === 0 && health.breakerFailures === 0 && health.breakerOpenUntil === null;

/** Closed (`openUntil` null); open (attempts held back) until `openUntil`; then one attempt may probe. */
export const breakerStateAt = (openUntil: number | null, now: number): BreakerState =>
  openUntil === null ? 'closed' : now < openUntil ? 'open' : 'probe';

export const cooldownMs = (breakerFailures: number, policy: HealthPolicy): number =>
  Math.min(policy.cooldownMs * 2 ** Math.max(0, breakerFailures - policy.breakerThreshold), Math.max(MAX_COOLDOWN_MS, policy.cooldownMs));

/**
 * The endpoint's health after an attempt made at `at` (`probe`: the breaker's probe), and
 * whether the webhook must now be disabled. A success clears everything. A timeout, a
 * connection failure or a resolver failure (`dns unavailable`, `does not resolve`: a name
 * server that stopped answering is as unreachable as the receiver) counts toward the breaker,
 * which opens at the threshold; once it is open, only the probe's failure counts (it opens it
 * again, for twice as long), not those of attempts that were in flight when it opened. A
 * failure that is an answer (an HTTP status, a TLS handshake) closes it: the receiver is
 * reachable. A blocked address leaves it as it was (the receiver was never tried). Every
 * failure extends the run that disabling looks at. An attempt that could not be made
 * (`internal error`, ours) says nothing about the endpoint.
 */
export function healthAfter(
  health: EndpointHealth,
  signal: EndpointSignal,
  at: number,
  policy: HealthPolicy,
  probe = false,
): { health: EndpointHealth; disable: boolean } {
  if (signal === 'success') return { health: HEALTHY, disable: false };
  if (signal === 'ours') return { health, disable: false };
  const failingSince = health.failingSince ?? at;
  const failedAttempts = health.failedAttempts + 1;
  let { breakerFailures, breakerOpenUntil } = health;
  if (signal === 'reachable') {
    breakerFailures = 0;
    breakerOpenUntil = null;
  } else if (signal === 'unreachable' && (breakerOpenUntil === null || probe)) {
    breakerFailures += 1;
    if (breakerFailures >= policy.breakerThreshold) breakerOpenUntil = at + cooldownMs(breakerFailures, policy);
  }
  const disable = failedAttempts >= DISABLE_AFTER_ATTEMPTS && at - failingSince >= policy.disableAfterMs;
  return { health: { failingSince, failedAttempts, breakerFailures, breakerOpenUntil }, disable };
}

/** One recorded attempt as the endpoint's health reads it. */
export interface HealthEvent {
  readonly signal: EndpointSignal;
  readonly at: number;
  readonly probe: boolean;
}

/** healthAfter over a batch of one webhook's attempts, in the order they were made: whether any of them disables it. */
export function healthAfterAll(
  health: EndpointHealth,
  events: readonly HealthEvent[],
  policy: HealthPolicy,
): { health: EndpointHealth; disable: boolean } {
  let disable = false;
  for (const { signal, at, probe } of [...events].sort((a, b) => a.at - b.at)) {
    const next = healthAfter(health, signal, at, policy, probe);
    health = next.health;
    disable ||= next.disable;
  }
  return { health, disable };
}
