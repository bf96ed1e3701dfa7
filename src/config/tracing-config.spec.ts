import { describe, expect, it } from 'vitest';
import { parseEnvironment } from './environment';
import { tracingOf } from './tracing-config';

const tracing = (env: Record<string, string | undefined>) => tracingOf(parseEnvironment(env));

describe('tracingOf (docs/api.md 10.17)', () => {
  it('exports nothing when no endpoint is set', () => {
    expect(tracing({})).toEqual({ exportUrl: undefined, serviceName: 'platform-api' });
  });

  it("puts /v1/traces after OTEL_EXPORTER_OTLP_ENDPOINT, as OpenTelemetry's exporters do", () => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).exportUrl).toBe('http://collector:4318/v1/traces');
  });

  it('takes OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, before the general endpoint', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/traces' };
    expect(tracing(env).exportUrl).toBe('https://b/traces');
  });

  it.each([{ OTEL_SDK_DISABLED: 'true' }, { OTEL_TRACES_EXPORTER: 'none' }])('exports nothing with %o, whatever the endpoint', (off) => {
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', ...off }).exportUrl).toBeUndefined();
  });

  it('names the service by OTEL_SERVICE_NAME', () => {
    expect(tracing({ OTEL_SERVICE_NAME: 'payments-hooks' }).serviceName).toBe('payments-hooks');
  });

  it('stops the start, naming the variable, for an endpoint that is not an http URL', () => {
    expect(() => tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT: must be an http or https URL$/,
    );
    expect(() => tracing({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'ftp://x' })).toThrow(
      /^OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http or https URL$/,
    );
  });

  it('never echoes the endpoint it refuses, which may carry a user and token', () => {
    expect(() => tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://user:s3cret@collector' })).toThrow(expect.not.stringContaining('s3cret'));
  });
});
