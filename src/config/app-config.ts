import { databaseOf, DatabaseConfig } from './database-config';
import { deliveryOf, DeliveryConfig } from './delivery-config';
import { parseEnvironment } from './environment';
import { RateLimits, rateLimitsOf } from './rate-limit-config';
import { currentKey, decodeKey, SecretKeys } from './secret-key';
import { metricsPortBeside, parseApiPrefix, parseDnsServers, parseMetricsHost, parseOrigins } from './server-config';
import { tracingOf, TracingConfig } from './tracing-config';
import { parseTrustedRanges, TrustedRange, trustedRangeWarnings } from './trusted-ranges';

/**
 * The validated, typed configuration of one process (server or CLI). Built once by
 * `loadAppConfig`; injected by class, so tests replace it with `overrideProvider(AppConfig)`.
 */
export class AppConfig {
  readonly production: boolean;
  readonly port: number;
  readonly host: string;
  /** The Prometheus listener's port, on `metricsHost` (docs/api.md 9); undefined: no metrics are served. */
  readonly metricsPort: number | undefined;
  /** The Prometheus listener's bind address, loopback unless the operator says otherwise (it has no authentication). */
  readonly metricsHost: string;
  /** '' or a path starting with '/', without a trailing slash. */
  readonly apiPrefix: string;
  readonly database: DatabaseConfig;
  readonly migrateOnStart: boolean;
  /** Resolvers for webhook hosts (`ip` or `ip:port`); undefined means the system's. */
  readonly dnsServers: readonly string[] | undefined;
  readonly dnsTimeoutMs: number;
  readonly secretKeys: SecretKeys;
  readonly webhooksPerOrgMax: number;
  readonly logLevel: string;
  /** Whole-request deadline of the HTTP server. */
  readonly requestTimeoutMs: number;
  /** Origins whose pages may send state-changing webhook requests (exact `scheme://host[:port]`). */
  readonly allowedOrigins: readonly string[];
  readonly rateLimits: RateLimits;
  readonly delivery: DeliveryConfig;
  /** Ranges whose addresses count as public on the ports they name, at registration and at delivery (docs/api.md 10.4). */
  readonly trustedCidrs: readonly TrustedRange[];
  /** One call to a card processor (docs/api.md 6.1): connect, TLS, request and answer. */
  readonly issuerTimeoutMs: number;
  /** Where spans are exported, if anywhere (docs/api.md 10.17). */
  readonly tracing: TracingConfig;
  /** What the start-up log must warn about (a key file others can read, a trusted range over loopback or metadata). */
  readonly warnings: readonly string[];

  constructor(values: AppConfig) {
    Object.assign(this, values);
  }
}

/** Every section of the environment (docs/api.md 2), validated once; the sections' parsers live beside this file. */
export function loadAppConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const e = parseEnvironment(env);
  const production = e.NODE_ENV === 'production';
  const warnings: string[] = [];
  const database = databaseOf(e, cwd);
  const port = e.PORT ?? 3000;
  const trustedCidrs = parseTrustedRanges(e.TRUSTED_CIDRS ?? '');
  warnings.push(...trustedRangeWarnings(trustedCidrs));
  return new AppConfig({
    production,
    port,
    host: e.HOST ?? '0.0.0.0',
    metricsPort: e.METRICS_PORT === undefined ? undefined : metricsPortBeside(port, e.METRICS_PORT),
    metricsHost: parseMetricsHost(e.METRICS_HOST ?? '127.0.0.1'),
    apiPrefix: parseApiPrefix(e.API_PREFIX ?? '/api'),
    database,
    migrateOnStart: (e.MIGRATE_ON_START ?? 'true') === 'true',
    dnsServers: e.DNS_SERVERS === undefined ? undefined : parseDnsServers(e.DNS_SERVERS),
    dnsTimeoutMs: e.DNS_TIMEOUT_MS ?? 2000,
    secretKeys: {
      current: currentKey(e.SECRET_KEY, production, cwd, warnings),
      previous: (e.PREVIOUS_SECRET_KEYS ?? '')
        .split(',')
        .filter((k) => k.trim() !== '')
        .map((k) => decodeKey('PREVIOUS_SECRET_KEYS', k)),
    },
    webhooksPerOrgMax: e.WEBHOOKS_PER_ORG_MAX ?? 100,
    logLevel: e.LOG_LEVEL ?? 'info',
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS ?? 30_000,
    allowedOrigins: parseOrigins(e.ALLOWED_ORIGINS ?? ''),
    rateLimits: rateLimitsOf(e, database),
    delivery: deliveryOf(e, cwd),
    trustedCidrs,
    issuerTimeoutMs: e.ISSUER_TIMEOUT_MS ?? 10_000,
    tracing: tracingOf(e),
    warnings,
  });
}
