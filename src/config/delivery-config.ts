import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, Environment } from './environment';

/** Event delivery: DELIVERY_* and AUDIT_RETENTION_DAYS (docs/api.md 2, 10). */
export interface DeliveryConfig {
  /** Attempts in flight in this instance; 0: it serves the API only. */
  readonly concurrency: number;
  readonly pollMs: number;
  readonly timeoutMs: number;
  /** Seconds between attempts after the first, immediate one. */
  readonly retrySchedule: readonly number[];
  /** `http://host:port` of the HTTP CONNECT egress proxy, when every attempt tunnels through one. */
  readonly proxyUrl: URL | undefined;
  /** Extra trusted CA certificates (PEM), beside the system's. */
  readonly caFile: string | undefined;
  readonly retentionDays: number;
  /** Audit entries are kept this long (docs/api.md 10.9). */
  readonly auditRetentionDays: number;
  /** The most attempts in flight to one webhook, in this instance; each webhook's own limit adapts below it (docs/api.md 10.10). */
  readonly maxInFlightPerWebhook: number;
  /** Event bodies this instance may hold for its deliveries in flight or waiting, in bytes (DELIVERY_BUFFER_MB). */
  readonly bufferBytes: number;
  /** A webhook whose attempts have all failed this long (and at least 10 of them) is disabled; 0: after 10. */
  readonly disableAfterDays: number;
  /** Pending deliveries an organization may have before `POST /events` answers 429 queue full. */
  readonly pendingPerOrgMax: number;
  /** The circuit breaker: consecutive timeouts or connection failures that open it, and its first cool-down. */
  readonly breakerThreshold: number;
  readonly breakerCooldownMs: number;
}

export const deliveryOf = (e: Environment, cwd: string): DeliveryConfig => ({
  concurrency: e.DELIVERY_CONCURRENCY ?? 256,
  pollMs: e.DELIVERY_POLL_MS ?? 1000,
  timeoutMs: e.DELIVERY_TIMEOUT_MS ?? 15_000,
  retrySchedule: parseRetrySchedule(e.DELIVERY_RETRY_SCHEDULE ?? '5,300,1800,7200,18000,36000,36000'),
  proxyUrl: e.DELIVERY_PROXY_URL === undefined ? undefined : parseProxyUrl(e.DELIVERY_PROXY_URL),
  caFile: e.DELIVERY_CA_FILE === undefined ? undefined : certificateFile('DELIVERY_CA_FILE', resolve(cwd, e.DELIVERY_CA_FILE)),
  retentionDays: e.DELIVERY_RETENTION_DAYS ?? 30,
  auditRetentionDays: e.AUDIT_RETENTION_DAYS ?? 400,
  maxInFlightPerWebhook: e.DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK ?? 64,
  bufferBytes: (e.DELIVERY_BUFFER_MB ?? 32) * 1024 * 1024,
  disableAfterDays: e.DELIVERY_DISABLE_AFTER_DAYS ?? 5,
  pendingPerOrgMax: e.DELIVERY_PENDING_PER_ORG_MAX ?? 100_000,
  breakerThreshold: e.DELIVERY_BREAKER_THRESHOLD ?? 5,
  breakerCooldownMs: e.DELIVERY_BREAKER_COOLDOWN_MS ?? 30_000,
});

/**
 * DELIVERY_RETRY_SCHEDULE: comma-separated whole seconds, at least one (an empty variable counts as
 * unset: the default schedule; `,` is refused rather than read as no retries).
 */
function parseRetrySchedule(value: string): number[] {
  const parts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  const seconds = parts.map(Number);
  if (parts.length === 0 || parts.some((part) => !/^\d+$/.test(part)) || seconds.some((s) => s > 86_400)) {
    throw new ConfigError(
      'DELIVERY_RETRY_SCHEDULE',
      `invalid value ${JSON.stringify(value)} (comma-separated whole seconds, each at most 86400)`,
    );
  }
  return seconds;
}

function parseProxyUrl(value: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    // reported below
  }
  // Port 0 is no proxy's; without a port, http's 80.
  if (url === undefined || url.protocol !== 'http:' || url.port === '0' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new ConfigError('DELIVERY_PROXY_URL', 'must be http://host:port of an HTTP CONNECT proxy');
  }
  return url;
}

/**
 * A file of PEM certificates, every one of which parses: TLS would silently ignore anything else
 * in it, and every attempt to a receiver of that CA would then end in `tls error`.
 */
function certificateFile(variable: string, path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new ConfigError(variable, `cannot read ${path}`);
  }
  const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  const parses = (pem: string): boolean => {
    try {
      new X509Certificate(pem);
      return true;
    } catch {
      return false;
    }
  };
  if (certificates.length === 0 || !certificates.every(parses)) throw new ConfigError(variable, `${path} must hold PEM certificates`);
  return path;
}
