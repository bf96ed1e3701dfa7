import { plainToInstance, Transform } from 'class-transformer';
import { getMetadataStorage, IsIn, IsInt, IsOptional, IsString, Max, Min, validateSync } from 'class-validator';

const toInt = ({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value);

/**
 * The environment variables of docs/api.md 2 (and the few this service adds), as they arrive:
 * strings, checked once at start. Defaults and cross-field rules live in `loadAppConfig`.
 */
export class Environment {
  @IsOptional()
  @IsIn(['development', 'test', 'production'])
  NODE_ENV?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT?: number;

  @IsOptional()
  @IsString()
  HOST?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(65535)
  METRICS_PORT?: number;

  @IsOptional()
  @IsString()
  METRICS_HOST?: string;

  @IsOptional()
  @IsString()
  API_PREFIX?: string;

  @IsOptional()
  @IsString()
  DATABASE_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  DB_POOL_SIZE?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(60_000)
  DB_CONNECT_TIMEOUT_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(2000)
  @Max(600_000)
  DB_QUERY_TIMEOUT_MS?: number;

  @IsOptional()
  @IsIn(['true', 'false'])
  MIGRATE_ON_START?: string;

  @IsOptional()
  @IsString()
  DNS_SERVERS?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(60_000)
  DNS_TIMEOUT_MS?: number;

  @IsOptional()
  @IsString()
  SECRET_KEY?: string;

  @IsOptional()
  @IsString()
  PREVIOUS_SECRET_KEYS?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100_000)
  WEBHOOKS_PER_ORG_MAX?: number;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(600_000)
  REQUEST_TIMEOUT_MS?: number;

  @IsOptional()
  @IsString()
  ALLOWED_ORIGINS?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(86_400)
  RATE_LIMIT_WINDOW_SECONDS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_SESSION?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_ORGANIZATION?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_WALLET_TOKEN?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_PER_PLATFORM_KEY?: number;

  @IsOptional()
  @IsString()
  TRUSTED_PROXIES?: string;

  @IsOptional()
  @IsString()
  REDIS_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1000)
  DELIVERY_CONCURRENCY?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(10)
  @Max(3_600_000)
  DELIVERY_POLL_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DELIVERY_TIMEOUT_MS?: number;

  @IsOptional()
  @IsString()
  DELIVERY_RETRY_SCHEDULE?: string;

  @IsOptional()
  @IsString()
  DELIVERY_PROXY_URL?: string;

  @IsOptional()
  @IsString()
  DELIVERY_CA_FILE?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  DELIVERY_RETENTION_DAYS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(36500)
  AUDIT_RETENTION_DAYS?: number;

  @IsOptional()
  @IsString()
  TRUSTED_CIDRS?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(4096)
  DELIVERY_BUFFER_MB?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(3650)
  DELIVERY_DISABLE_AFTER_DAYS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1_000_000_000)
  DELIVERY_PENDING_PER_ORG_MAX?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  DELIVERY_BREAKER_THRESHOLD?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(3_600_000)
  DELIVERY_BREAKER_COOLDOWN_MS?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  RATE_LIMIT_ACTIONS_PER_WEBHOOK?: number;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  ISSUER_TIMEOUT_MS?: number;

  // OpenTelemetry's own variables (docs/api.md 10.17), read as its exporters read them (tracing-config.ts).
  @IsOptional()
  @IsString()
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @IsOptional()
  @IsString()
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  @IsOptional()
  @IsString()
  OTEL_SERVICE_NAME?: string;

  @IsOptional()
  @IsIn(['true', 'false'])
  OTEL_SDK_DISABLED?: string;

  @IsOptional()
  @IsString()
  OTEL_TRACES_EXPORTER?: string;
}

/**
 * The variables read from the environment: every property of the class, as class-validator's own
 * metadata names them (each carries at least @IsOptional), so a variable added to the class is read
 * with nothing else to edit (issue 26: a hand-kept list silently ignored a key it missed).
 * environment.spec.ts sets every property of the class and checks that each one arrives.
 */
const ENV_KEYS: readonly string[] = [
  ...new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(Environment, '', true, false)
      .map(({ propertyName }) => propertyName),
  ),
];

/** Variables whose value must never be echoed, not even in a start-up error. */
const SENSITIVE: ReadonlySet<string> = new Set(['SECRET_KEY', 'PREVIOUS_SECRET_KEYS', 'DATABASE_URL', 'REDIS_URL']);

/** Invalid configuration; its message is the one line printed before the process stops. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`${variable}: ${problem}`);
  }
}

export function parseEnvironment(env: NodeJS.ProcessEnv): Environment {
  const given = Object.fromEntries(ENV_KEYS.filter((key) => env[key] !== undefined && env[key] !== '').map((key) => [key, env[key]]));
  const parsed = plainToInstance(Environment, given);
  const [first] = validateSync(parsed);
  if (first) {
    // A wrong type says more than a range that the value could not even be compared with.
    const constraints = first.constraints ?? {};
    const rule = constraints.isInt ?? constraints.isIn ?? constraints.isString ?? Object.values(constraints)[0] ?? 'invalid';
    const shown = SENSITIVE.has(first.property) ? '' : ` ${JSON.stringify(given[first.property])}`;
    throw new ConfigError(first.property, `invalid value${shown} (${rule})`);
  }
  return parsed;
}
