import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { type Attributes, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { version } from '../../package.json';
import { AppConfig } from '../config/app-config';
import { type EventTrace, newSpanId, newTraceId } from './trace-context';

export { SpanKind };

/** Where a span hangs: its trace, and its parent span when it has one (a producer's, an event's). */
export interface SpanParent {
  readonly traceId: string;
  readonly spanId: string;
}

/** A span begun: its ids (what propagation needs, exported or not), and its end. */
export interface TraceSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Ends it with these attributes; `failed` marks its status as an error. */
  end(attributes?: Attributes, failed?: boolean): void;
}

/**
 * Spans (docs/api.md 10.17). With an OTLP endpoint configured (OpenTelemetry's own variables),
 * each is recorded and exported in batches over OTLP/HTTP; without one, a span is only its ids,
 * made at random, so that trace context propagates whatever the export: that costs two random
 * numbers and nothing else. Either way no context manager is installed: a span's parent is
 * always passed in (an AsyncLocalStorage would make every await of the process dearer, issue 26),
 * and nothing here is global. What a caller gives as attributes must carry no secret, token,
 * header value, body, or URL path or query.
 */
@Injectable()
export class Tracing implements OnApplicationShutdown {
  private readonly provider: TracerProvider | undefined;
  private readonly tracer: Tracer | undefined;

  constructor(config: AppConfig) {
    const { exportUrl, serviceName } = config.tracing;
    if (exportUrl === undefined) return;
    this.provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': version }),
      spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: exportUrl }) })],
    });
    this.tracer = this.provider.getTracer('platform-api', version);
  }

  /** Whether spans are exported (else only their ids are made). */
  get exporting(): boolean {
    return this.tracer !== undefined;
  }

  /** A span under `parent` (a new trace when none), begun now or at `startTime` (ms since the epoch). */
  start(name: string, kind: SpanKind, parent: SpanParent | undefined, attributes: Attributes = {}, startTime?: number): TraceSpan {
    if (this.tracer === undefined) {
      return { traceId: parent?.traceId ?? newTraceId(), spanId: newSpanId(), end: () => undefined };
    }
    const context =
      parent === undefined
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, {
            traceId: parent.traceId,
            spanId: parent.spanId,
            traceFlags: TraceFlags.SAMPLED,
            isRemote: true,
          });
    const span = this.tracer.startSpan(name, { kind, attributes, startTime }, context);
    const { traceId, spanId } = span.spanContext();
    return {
      traceId,
      spanId,
      end: (ending = {}, failed = false) => {
        span.setAttributes(ending);
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }

  /** The trace of an event the service makes itself (docs/api.md 10.17): a new one, whose root span marks its making. */
  newEventTrace(name: string, attributes: Attributes = {}): EventTrace {
    const span = this.start(name, SpanKind.INTERNAL, undefined, attributes);
    span.end();
    return { traceId: span.traceId, spanId: span.spanId };
  }

  /** The spans not yet sent go before the process ends. */
  async onApplicationShutdown(): Promise<void> {
    await this.provider?.shutdown();
  }
}
