import { ConfigError, type Environment } from './environment';

/** docs/api.md 10.17: where spans are exported (OTLP over HTTP), or nowhere. */
export interface TracingConfig {
  /** The OTLP/HTTP traces endpoint; undefined: nothing is exported, and tracing costs next to nothing. */
  readonly exportUrl: string | undefined;
  readonly serviceName: string;
}

/**
 * OpenTelemetry's own variables (docs/api.md 2, 10.17): OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it
 * is, else OTEL_EXPORTER_OTLP_ENDPOINT with `/v1/traces` after it (as OpenTelemetry's exporters
 * read them); none, OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none: nothing is exported. The
 * exporter reads the others (OTEL_EXPORTER_OTLP_HEADERS, …_TIMEOUT) itself.
 */
export function tracingOf(e: Environment): TracingConfig {
  const serviceName = e.OTEL_SERVICE_NAME ?? 'platform-api';
  if (e.OTEL_SDK_DISABLED === 'true' || e.OTEL_TRACES_EXPORTER === 'none') return { exportUrl: undefined, serviceName };
  const traces = e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = e.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (traces !== undefined) return { exportUrl: httpUrl('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', traces), serviceName };
  if (base !== undefined)
    return { exportUrl: `${httpUrl('OTEL_EXPORTER_OTLP_ENDPOINT', base).replace(/\/+$/, '')}/v1/traces`, serviceName };
  return { exportUrl: undefined, serviceName };
}

/** The endpoint as given, if it is an http(s) URL. Never echoed: it may carry a user and token. */
function httpUrl(variable: string, value: string): string {
  const protocol = URL.canParse(value) ? new URL(value).protocol : undefined;
  if (protocol !== 'http:' && protocol !== 'https:') throw new ConfigError(variable, 'must be an http or https URL');
  return value;
}
