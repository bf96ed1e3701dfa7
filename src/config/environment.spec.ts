import { describe, expect, it } from 'vitest';
import { Environment, parseEnvironment } from './environment';

/**
 * A valid value for every variable the class declares. `Required<Record<keyof Environment, …>>`:
 * a property added to the class without a value here does not type-check, and one the parser
 * does not read fails the test below (issue 26: a hand-kept key list once ignored such a variable).
 */
const EVERY_VARIABLE: Required<Record<keyof Environment, string>> = {
  NODE_ENV: 'test',
  PORT: '8080',
  HOST: '127.0.0.1',
  METRICS_PORT: '9464',
  METRICS_HOST: '::1',
  API_PREFIX: '/v1',
  DATABASE_URL: 'sqlite:x.sqlite',
  DB_POOL_SIZE: '5',
  DB_CONNECT_TIMEOUT_MS: '1000',
  DB_QUERY_TIMEOUT_MS: '3000',
  MIGRATE_ON_START: 'false',
  DNS_SERVERS: '9.9.9.9',
  DNS_TIMEOUT_MS: '500',
  SECRET_KEY: 'key',
  PREVIOUS_SECRET_KEYS: 'keys',
  WEBHOOKS_PER_ORG_MAX: '7',
  LOG_LEVEL: 'debug',
  REQUEST_TIMEOUT_MS: '5000',
  ALLOWED_ORIGINS: 'https://console.example.com',
  RATE_LIMIT_WINDOW_SECONDS: '30',
  RATE_LIMIT_PER_SESSION: '10',
  RATE_LIMIT_PER_ORGANIZATION: '20',
  RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS: '30',
  RATE_LIMIT_PER_WALLET_TOKEN: '40',
  RATE_LIMIT_PER_PLATFORM_KEY: '50',
  TRUSTED_PROXIES: '10.0.0.1',
  REDIS_URL: 'redis://cache.example.com',
  DELIVERY_CONCURRENCY: '3',
  DELIVERY_POLL_MS: '200',
  DELIVERY_TIMEOUT_MS: '2000',
  DELIVERY_RETRY_SCHEDULE: '1,2',
  DELIVERY_PROXY_URL: 'http://proxy.example.com:3128',
  DELIVERY_CA_FILE: 'ca.pem',
  DELIVERY_RETENTION_DAYS: '3',
  AUDIT_RETENTION_DAYS: '4',
  TRUSTED_CIDRS: '10.0.0.0/8:443',
  DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK: '2',
  DELIVERY_BUFFER_MB: '16',
  DELIVERY_DISABLE_AFTER_DAYS: '0',
  DELIVERY_PENDING_PER_ORG_MAX: '60',
  DELIVERY_BREAKER_THRESHOLD: '6',
  DELIVERY_BREAKER_COOLDOWN_MS: '1500',
  RATE_LIMIT_ACTIONS_PER_WEBHOOK: '8',
  ISSUER_TIMEOUT_MS: '2500',
  OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces',
  OTEL_SERVICE_NAME: 'platform-api-test',
  OTEL_SDK_DISABLED: 'false',
  OTEL_TRACES_EXPORTER: 'otlp',
};

describe('parseEnvironment (docs/api.md 2)', () => {
  it('reads every variable the class declares, numbers as numbers', () => {
    const parsed = parseEnvironment(EVERY_VARIABLE);
    const numeric = (value: string) => /^\d+$/.test(value);
    expect({ ...parsed }).toEqual(
      Object.fromEntries(Object.entries(EVERY_VARIABLE).map(([key, value]) => [key, numeric(value) ? Number(value) : value])),
    );
  });

  it('reads nothing else from the environment', () => {
    expect({ ...parseEnvironment({ PORT: '8080', PATH: '/usr/bin', HOME: '/root', port: '1' }) }).toEqual({ PORT: 8080 });
  });
});
