import ipaddr from 'ipaddr.js';
import { databaseIdentity, DatabaseConfig } from './database-config';
import { ConfigError, Environment } from './environment';

// The rate limits (RATE_LIMIT_*, TRUSTED_PROXIES, REDIS_URL), their counters scoped to the database.

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

export const rateLimitsOf = (e: Environment, database: DatabaseConfig): RateLimits => ({
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
});

/** TRUSTED_PROXIES: comma-separated IP addresses or CIDRs (ipaddr.js parses both). */
export function parseTrustedProxies(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
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

function parseRedisUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'redis:' || url.protocol === 'rediss:') return value;
  } catch {
    // reported below
  }
  throw new ConfigError('REDIS_URL', 'must be redis://[user:pass@]host[:port][/db] or rediss://…');
}
