import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { ConfigError, parseEnvironment } from './environment';
import { decodeKey, keyFileExposure, readOrCreateKeyFile } from './secret-key';
import { parseTrustedRanges, TrustedRange } from './trusted-ranges';

export type DatabaseConfig =
  | {
      readonly type: 'mysql';
      /** From the URL scheme: TypeORM reads a MariaDB catalog differently from a MySQL one. */
      readonly flavor: 'mysql' | 'mariadb';
      readonly url: string;
      readonly poolSize: number;
      /** Also the longest wait for a pooled connection. */
      readonly connectTimeoutMs: number;
      readonly queryTimeoutMs: number;
    }
  | { readonly type: 'sqlite'; readonly path: string };

export interface RateLimits {
  /** Scopes the counters to this deployment's database: its instances share them, others never do. */
  readonly keyPrefix: string;
  readonly windowMs: number;
  readonly perSession: number;
  readonly perOrganization: number;
  /** Failed authentications (401) per client address and window; past it, 429 before authentication. */
  readonly authFailuresPerAddress: number;
  /** Card provisioning requests per wallet token and window. */
  readonly perWalletToken: number;
  /** Test events, and replays, per webhook and window, each (docs/api.md 10.10). */
  readonly actionsPerWebhook: number;
  /** Events sent per platform key and window. */
  readonly perPlatformKey: number;
  /**
   * Express's `trust proxy`: the proxies (addresses, CIDRs) whose X-Forwarded-For names the
   * client. Empty: the client is the connection's peer and X-Forwarded-For is ignored.
   */
  readonly trustedProxies: readonly string[];
  /** Counters in Redis (shared by every instance) when set, else in each process's memory. */
  readonly redisUrl: string | undefined;
}

/** Event delivery (docs/api.md 2, 10). */
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
  /** Attempts in flight to one webhook, in this instance (docs/api.md 10.10). */
  readonly maxInFlightPerWebhook: number;
  /** A webhook whose attempts have all failed this long (and at least 10 of them) is disabled; 0: after 10. */
  readonly disableAfterDays: number;
  /** Pending deliveries an organization may have before `POST /events` answers 429 queue full. */
  readonly pendingPerOrgMax: number;
  /** The circuit breaker: consecutive timeouts or connection failures that open it, and its first cool-down. */
  readonly breakerThreshold: number;
  readonly breakerCooldownMs: number;
}

export interface SecretKeys {
  /** Encrypts every new secret. */
  readonly current: Buffer;
  /** Still decrypt secrets written before a rotation. */
  readonly previous: readonly Buffer[];
}

/**
 * The validated, typed configuration of one process (server or CLI). Built once by
 * `loadAppConfig`; injected by class, so tests replace it with `overrideProvider(AppConfig)`.
 */
export class AppConfig {
  readonly production: boolean;
  readonly port: number;
  readonly host: string;
  /** The Prometheus listener's port, on `host` (docs/api.md 9); undefined: no metrics are served. */
  readonly metricsPort: number | undefined;
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
  /** What the start-up log must warn about (a key file others can read). */
  readonly warnings: readonly string[];

  constructor(values: AppConfig) {
    Object.assign(this, values);
  }
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/platform-api.sqlite';
const DEFAULT_KEY_FILE = 'data/secret.key';

export function loadAppConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const e = parseEnvironment(env);
  const production = e.NODE_ENV === 'production';
  const warnings: string[] = [];
  const database = parseDatabaseUrl(e.DATABASE_URL ?? DEFAULT_DATABASE_URL, cwd, {
    poolSize: e.DB_POOL_SIZE ?? 10,
    connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS ?? 2000,
    queryTimeoutMs: e.DB_QUERY_TIMEOUT_MS ?? 5000,
  });
  const port = e.PORT ?? 3000;
  return new AppConfig({
    production,
    port,
    host: e.HOST ?? '0.0.0.0',
    metricsPort: e.METRICS_PORT === undefined ? undefined : metricsPortBeside(port, e.METRICS_PORT),
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
    rateLimits: {
      keyPrefix: `platform-api:rate:${databaseIdentity(database)}`,
      windowMs: (e.RATE_LIMIT_WINDOW_SECONDS ?? 60) * 1000,
      perSession: e.RATE_LIMIT_PER_SESSION ?? 300,
      perOrganization: e.RATE_LIMIT_PER_ORGANIZATION ?? 1200,
      authFailuresPerAddress: e.RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS ?? 1000,
      perWalletToken: e.RATE_LIMIT_PER_WALLET_TOKEN ?? 300,
      actionsPerWebhook: e.RATE_LIMIT_ACTIONS_PER_WEBHOOK ?? 30,
      perPlatformKey: e.RATE_LIMIT_PER_PLATFORM_KEY ?? 300_000,
      trustedProxies: parseTrustedProxies(e.TRUSTED_PROXIES ?? ''),
      redisUrl: e.REDIS_URL === undefined ? undefined : parseRedisUrl(e.REDIS_URL),
    },
    delivery: {
      concurrency: e.DELIVERY_CONCURRENCY ?? 32,
      pollMs: e.DELIVERY_POLL_MS ?? 1000,
      timeoutMs: e.DELIVERY_TIMEOUT_MS ?? 15_000,
      retrySchedule: parseRetrySchedule(e.DELIVERY_RETRY_SCHEDULE ?? '5,300,1800,7200,18000,36000,36000'),
      proxyUrl: e.DELIVERY_PROXY_URL === undefined ? undefined : parseProxyUrl(e.DELIVERY_PROXY_URL),
      caFile: e.DELIVERY_CA_FILE === undefined ? undefined : readableFile('DELIVERY_CA_FILE', resolve(cwd, e.DELIVERY_CA_FILE)),
      retentionDays: e.DELIVERY_RETENTION_DAYS ?? 30,
      auditRetentionDays: e.AUDIT_RETENTION_DAYS ?? 400,
      maxInFlightPerWebhook: e.DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK ?? 4,
      disableAfterDays: e.DELIVERY_DISABLE_AFTER_DAYS ?? 5,
      pendingPerOrgMax: e.DELIVERY_PENDING_PER_ORG_MAX ?? 100_000,
      breakerThreshold: e.DELIVERY_BREAKER_THRESHOLD ?? 5,
      breakerCooldownMs: e.DELIVERY_BREAKER_COOLDOWN_MS ?? 30_000,
    },
    trustedCidrs: parseTrustedRanges(e.TRUSTED_CIDRS ?? ''),
    warnings,
  });
}

/** Metrics are never served on the public port: the two must differ. */
function metricsPortBeside(port: number, metricsPort: number): number {
  if (metricsPort === port) throw new ConfigError('METRICS_PORT', `must differ from PORT (${port}): metrics are never served on the public port`);
  return metricsPort;
}

/** DELIVERY_RETRY_SCHEDULE: comma-separated whole seconds (empty: no retries). */
function parseRetrySchedule(value: string): number[] {
  const parts = value.split(',').map((part) => part.trim()).filter((part) => part !== '');
  const seconds = parts.map(Number);
  if (parts.some((part) => !/^\d+$/.test(part)) || seconds.some((s) => s > 86_400)) {
    throw new ConfigError('DELIVERY_RETRY_SCHEDULE', `invalid value ${JSON.stringify(value)} (comma-separated whole seconds, each at most 86400)`);
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
  if (url === undefined || url.protocol !== 'http:' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    throw new ConfigError('DELIVERY_PROXY_URL', 'must be http://host:port of an HTTP CONNECT proxy');
  }
  return url;
}

function readableFile(variable: string, path: string): string {
  try {
    readFileSync(path);
    return path;
  } catch {
    throw new ConfigError(variable, `cannot read ${path}`);
  }
}

function parseApiPrefix(value: string): string {
  const prefix = value.replace(/\/+$/, '');
  if (prefix !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix)) {
    throw new ConfigError('API_PREFIX', `invalid value ${JSON.stringify(value)} (a path such as /api, or empty)`);
  }
  return prefix;
}

type MysqlLimits = Pick<Extract<DatabaseConfig, { type: 'mysql' }>, 'poolSize' | 'connectTimeoutMs' | 'queryTimeoutMs'>;

/** TRUSTED_PROXIES: comma-separated IP addresses or CIDRs (ipaddr.js parses both). */
export function parseTrustedProxies(value: string): string[] {
  const entries = value.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  for (const entry of entries) {
    const valid = entry.includes('/') ? isValidCidr(entry) : ipaddr.isValid(entry);
    if (!valid) throw new ConfigError('TRUSTED_PROXIES', `invalid entry ${JSON.stringify(entry)} (IP address or CIDR, comma-separated)`);
  }
  return entries;
}

function isValidCidr(entry: string): boolean {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

export function parseDatabaseUrl(value: string, cwd: string, limits: MysqlLimits): DatabaseConfig {
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length);
    if (path === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, as in sqlite:data/platform-api.sqlite');
    return { type: 'sqlite', path: path === ':memory:' || isAbsolute(path) ? path : resolve(cwd, path) };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('DATABASE_URL', 'must be mysql://user:pass@host:port/db or sqlite:path');
  }
  if ((url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') || url.hostname === '' || url.pathname.length < 2) {
    throw new ConfigError('DATABASE_URL', 'must be mysql://user:pass@host:port/db or sqlite:path');
  }
  const flavor = url.protocol === 'mariadb:' ? 'mariadb' : 'mysql';
  return { type: 'mysql', flavor, url: `mysql:${url.href.slice(url.protocol.length)}`, ...limits };
}

function parseDnsServers(value: string): string[] {
  const servers = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (servers.length === 0) throw new ConfigError('DNS_SERVERS', 'empty list');
  return servers.map((server) => {
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+):(\d+)$/.exec(server);
    const [address, port] = match ? [match[1], Number(match[2] ?? 53)] : [server, 53];
    if (isIP(address) === 0 || !(port >= 1 && port <= 65535)) {
      throw new ConfigError('DNS_SERVERS', `invalid server ${JSON.stringify(server)} (ip or ip:port, comma-separated)`);
    }
    // The forms c-ares takes: a bare address, or ip:port / [v6]:port.
    return port === 53 && !match ? address : isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
  });
}

/** Production takes its key only from SECRET_KEY, never from a file. */
function currentKey(secretKey: string | undefined, production: boolean, cwd: string, warnings: string[]): Buffer {
  if (secretKey !== undefined) return decodeKey('SECRET_KEY', secretKey);
  if (production) throw new ConfigError('SECRET_KEY', 'required when NODE_ENV=production (base64 of 32 bytes)');
  const path = resolve(cwd, DEFAULT_KEY_FILE);
  const key = readOrCreateKeyFile(path);
  const exposure = keyFileExposure(path);
  if (exposure !== undefined) warnings.push(exposure);
  return key;
}

function parseOrigins(value: string): string[] {
  return value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
    .map((origin) => {
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        throw new ConfigError('ALLOWED_ORIGINS', `invalid origin ${JSON.stringify(origin)} (scheme://host[:port], comma-separated)`);
      }
      if (url.origin === 'null' || `${url.origin}/` !== url.href) {
        throw new ConfigError('ALLOWED_ORIGINS', `invalid origin ${JSON.stringify(origin)} (scheme://host[:port], comma-separated)`);
      }
      return url.origin;
    });
}

/** The database without credentials, hashed: the same for every instance of one deployment. */
function databaseIdentity(database: DatabaseConfig): string {
  let where = database.type === 'sqlite' ? database.path : database.url;
  if (database.type === 'mysql') {
    const url = new URL(database.url);
    where = `${url.hostname}:${url.port || 3306}${url.pathname}`;
  }
  return createHash('sha256').update(where).digest('hex').slice(0, 12);
}

function parseRedisUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'redis:' || url.protocol === 'rediss:') return value;
  } catch {
    // reported below
  }
  throw new ConfigError('REDIS_URL', 'must be redis://[user:pass@]host[:port][/db] or rediss://…');
}
