import type { IncomingHttpHeaders } from 'node:http';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { type Attributes, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { version } from '../../package.json';
import { AppConfig } from '../config/app-config';
import { newSpanId, newTraceId, producerContextOf, type TraceContext } from './trace-context';

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

/** A request's span, begun when the request arrives and ended with its route and status. */
export interface RequestSpan {
  /**
   * What the request's own work hangs from (an event's acceptance): the request's span when spans
   * are exported, else the producer's (its `traceparent`); undefined when it sent none or a
   * malformed one. The producer's `tracestate` rides along.
   */
  readonly context: TraceContext | undefined;
  end(route: string | null, status: number): void;
}

/** An acceptance's span: the trace its events keep (the span and the `tracestate` to pass on), and its end. */
export interface AcceptanceSpan {
  readonly trace: TraceContext;
  end(attributes?: Attributes): void;
}

/** What an attempt's span says of it; built only when spans are exported. */
export interface AttemptFacts {
  readonly deliveryId: number;
  readonly eventId: string;
  readonly attempt: number;
  /** Its host alone goes on the span: never the path or the query. */
  readonly url: string;
}

/** An attempt's span: `context` is what the attempt's `traceparent` names, and what its token request hangs from. */
export interface AttemptSpan {
  readonly context: TraceContext;
  end(outcome: { readonly ok: boolean; readonly status: number | null; readonly error: string | null }): void;
}

/** A span begun by `begin`, whose name may be settled at its end (a request's route is known only then). */
interface Begun extends TraceSpan {
  end(attributes?: Attributes, failed?: boolean, name?: string): void;
}

const NOT_EXPORTED = (): void => undefined;

/**
 * Spans (docs/api.md 10.17), one function for each kind: a request's, an event's acceptance, an
 * attempt's, a token request's, and the root of a trace the service starts itself. With an OTLP
 * endpoint configured (OpenTelemetry's own variables), each is recorded and exported in batches
 * over OTLP/HTTP; without one, a span is only its ids, made at random, so that trace context
 * propagates whatever the export: that costs two random numbers and nothing else. Either way no
 * context manager is installed: a span's parent is always passed in, as a value (an
 * AsyncLocalStorage would make every await of the process dearer, issue 26), and nothing here is
 * global. No span carries a secret, token, header value, body, or URL path or query.
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

  /**
   * The span of a request, under the producer's `traceparent` when it sent a valid one (its
   * trace context headers read here, once): its method and route pattern, never its path, query
   * or headers. Without export, nothing but the producer's context is read.
   */
  requestSpan(method: string, headers: IncomingHttpHeaders): RequestSpan {
    const producer = headers.traceparent === undefined ? undefined : producerContextOf(headers.traceparent, headers.tracestate);
    if (this.tracer === undefined) return { context: producer, end: NOT_EXPORTED };
    const span = this.begin(method, SpanKind.SERVER, producer, { 'http.request.method': method });
    return {
      context: {
        traceId: span.traceId,
        spanId: span.spanId,
        ...(producer?.traceState !== undefined && { traceState: producer.traceState }),
      },
      end: (route, status) =>
        span.end(
          { 'http.route': route ?? 'unmatched', 'http.response.status_code': status },
          status >= 500,
          `${method} ${route ?? 'unmatched'}`,
        ),
    };
  }

  /** The span of an event's (or a batch's) acceptance, under the request's `context` (a new trace without one). */
  acceptanceSpan(request: TraceContext | undefined, attributes: Attributes): AcceptanceSpan {
    const span = this.begin('event accepted', SpanKind.INTERNAL, request, attributes);
    const trace = {
      traceId: span.traceId,
      spanId: span.spanId,
      ...(request?.traceState !== undefined && { traceState: request.traceState }),
    };
    return { trace, end: (ending) => span.end(ending) };
  }

  /**
   * The span of an attempt: in its event's trace, under the span of the event's acceptance; the
   * receiver's spans hang from it. `facts` is read only when spans are exported (10.17's cost bound).
   */
  attemptSpan(event: TraceContext, facts: () => AttemptFacts): AttemptSpan {
    const attributes = this.tracer === undefined ? undefined : attemptAttributes(facts());
    const span = this.begin('webhook attempt', SpanKind.CLIENT, event, attributes);
    const context = { traceId: span.traceId, spanId: span.spanId, ...(event.traceState !== undefined && { traceState: event.traceState }) };
    return {
      context,
      end: ({ ok, status, error }) =>
        span.end(
          this.tracer === undefined
            ? undefined
            : { 'http.response.status_code': status ?? undefined, 'webhook.attempt.error': error ?? undefined },
          !ok,
        ),
    };
  }

  /** The span of an OAuth token request (docs/api.md 10.16), under the attempt's: the token URL's host, never its path. */
  tokenSpan(attempt: SpanParent | undefined, tokenUrl: string): TraceSpan {
    return this.begin('oauth token request', SpanKind.CLIENT, attempt, this.tracer && { 'server.address': new URL(tokenUrl).hostname });
  }

  /** The trace of an event the service makes itself (docs/api.md 10.17): a new one, whose root span marks its making. */
  newEventTrace(name: string, attributes: Attributes = {}): TraceContext {
    const span = this.begin(name, SpanKind.INTERNAL, undefined, attributes);
    span.end();
    return { traceId: span.traceId, spanId: span.spanId };
  }

  /** The spans not yet sent go before the process ends. */
  async onApplicationShutdown(): Promise<void> {
    await this.provider?.shutdown();
  }

  /** A span under `parent` (a new trace when none), begun now. */
  private begin(name: string, kind: SpanKind, parent: SpanParent | undefined, attributes: Attributes = {}): Begun {
    if (this.tracer === undefined) {
      return { traceId: parent?.traceId ?? newTraceId(), spanId: newSpanId(), end: NOT_EXPORTED };
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
    const span = this.tracer.startSpan(name, { kind, attributes }, context);
    const { traceId, spanId } = span.spanContext();
    return {
      traceId,
      spanId,
      end: (ending = {}, failed = false, finalName) => {
        if (finalName !== undefined) span.updateName(finalName);
        span.setAttributes(ending);
        if (failed) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      },
    };
  }
}

function attemptAttributes({ deliveryId, eventId, attempt, url }: AttemptFacts): Attributes {
  return {
    'webhook.delivery.id': deliveryId,
    'webhook.event.id': eventId,
    'webhook.attempt': attempt,
    'server.address': new URL(url).hostname,
  };
}
