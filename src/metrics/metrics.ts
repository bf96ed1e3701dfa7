import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AttemptResult, attemptOutcomeLabel, routeLabel } from './metric-labels';

/** Where an accepted event came from, as this server sees it (the CLI's events are accepted by the CLI's process). */
export type EventSource = 'api' | 'console' | 'service';

/** The queue as the periodic collector reads it (QueueGauges). */
export interface QueueFigures {
  readonly pending: number;
  /** How long the oldest due delivery that may be attempted has waited; 0 when none is due. */
  readonly oldestDueSeconds: number;
  readonly breakersOpen: number;
  readonly disabledWebhooks: number;
}

/** Seconds: from a fast API answer to the slowest request the server lets run (REQUEST_TIMEOUT_MS is 30 s by default). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds: a receiver on the same network to DELIVERY_TIMEOUT_MS (15 s by default, at most 600 s); also a card processor's call, ISSUER_TIMEOUT_MS 10 s by default. */
const ATTEMPT_BUCKETS = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30, 60];

/**
 * The service's Prometheus instruments (docs/api.md 9), one registry per application (so that
 * tests may run several in one process), and one method per thing that happens, called where
 * it happens. Labels take a few values each: never an organization, a webhook, a URL, a token
 * or an event id. Served by MetricsServer on METRICS_PORT, never on the public port.
 */
@Injectable()
export class Metrics {
  readonly registry = new Registry();

  private readonly httpRequests = new Counter({
    name: 'platform_api_http_requests_total',
    help: 'HTTP requests answered on the public port, by matched route pattern (unmatched: none), method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });

  private readonly httpDuration = new Histogram({
    name: 'platform_api_http_request_duration_seconds',
    help: 'Time from the request to its answer (or to the client going away), by matched route pattern and method',
    labelNames: ['route', 'method'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  private readonly eventsAccepted = new Counter({
    name: 'platform_api_events_accepted_total',
    help: 'Events accepted by this server (idempotent replays not counted), by type and source: api (POST /events), console (webhook.test), service (webhook.disabled)',
    labelNames: ['type', 'source'] as const,
    registers: [this.registry],
  });

  private readonly queueFullRefusals = new Counter({
    name: 'platform_api_events_queue_full_total',
    help: 'POST /events refused with 429 queue full: the organization had DELIVERY_PENDING_PER_ORG_MAX pending deliveries',
    registers: [this.registry],
  });

  private readonly attempts = new Counter({
    name: 'platform_api_delivery_attempts_total',
    help: 'Delivery attempts made by this instance, by outcome: ok, an error of the delivery log, or http 3xx/4xx/5xx',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  private readonly attemptDuration = new Histogram({
    name: 'platform_api_delivery_attempt_duration_seconds',
    help: 'Duration of delivery attempts made by this instance (resolution, connection, request and answer), by result: ok or failed',
    labelNames: ['result'] as const,
    buckets: ATTEMPT_BUCKETS,
    registers: [this.registry],
  });

  private readonly pending = new Gauge({
    name: 'platform_api_delivery_queue_pending',
    help: 'Pending deliveries of every organization (read every 15 s)',
    registers: [this.registry],
  });

  private readonly oldestDue = new Gauge({
    name: 'platform_api_delivery_queue_oldest_due_age_seconds',
    help: 'How long the oldest due delivery has waited, leaving out those an open circuit breaker holds back (read every 15 s)',
    registers: [this.registry],
  });

  private readonly breakersOpen = new Gauge({
    name: 'platform_api_webhooks_breaker_open',
    help: 'Enabled webhooks whose circuit breaker is not closed: open, or waiting for its probe (read every 15 s)',
    registers: [this.registry],
  });

  private readonly disabledWebhooks = new Gauge({
    name: 'platform_api_webhooks_disabled',
    help: 'Webhooks disabled after failing for DELIVERY_DISABLE_AFTER_DAYS (read every 15 s)',
    registers: [this.registry],
  });

  private readonly processorCalls = new Counter({
    name: 'platform_api_card_processor_calls_total',
    help: "Calls to card processors for a wallet's payload (docs/api.md 6.1), by processor (the issuer's kind), wallet and outcome: ok, or what failed",
    labelNames: ['processor', 'wallet', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly processorCallDuration = new Histogram({
    name: 'platform_api_card_processor_call_duration_seconds',
    help: 'Duration of calls to card processors (connection, request and answer, at most ISSUER_TIMEOUT_MS), by processor',
    labelNames: ['processor'] as const,
    buckets: ATTEMPT_BUCKETS,
    registers: [this.registry],
  });

  /** A request answered (or abandoned by its client); `route` is the matched pattern, null when none matched. */
  httpRequest(route: string | null, method: string, status: number, seconds: number): void {
    const label = routeLabel(route);
    this.httpRequests.inc({ route: label, method, status: String(status) });
    this.httpDuration.observe({ route: label, method }, seconds);
  }

  eventAccepted(type: string, source: EventSource): void {
    this.eventsAccepted.inc({ type, source });
  }

  queueFull(): void {
    this.queueFullRefusals.inc();
  }

  attemptMade(outcome: AttemptResult): void {
    this.attempts.inc({ outcome: attemptOutcomeLabel(outcome) });
    this.attemptDuration.observe({ result: outcome.ok ? 'ok' : 'failed' }, outcome.durationMs / 1000);
  }

  /** A call to a card processor made, by the issuer's kind: never a card, a user or an organization. */
  processorCalled(processor: string, wallet: string, outcome: string, seconds: number): void {
    this.processorCalls.inc({ processor, wallet, outcome });
    this.processorCallDuration.observe({ processor }, seconds);
  }

  queueRead(figures: QueueFigures): void {
    this.pending.set(figures.pending);
    this.oldestDue.set(figures.oldestDueSeconds);
    this.breakersOpen.set(figures.breakersOpen);
    this.disabledWebhooks.set(figures.disabledWebhooks);
  }

  /** The queue could not be read: its gauges say they do not know, rather than repeat an old reading. */
  queueUnknown(): void {
    this.queueRead({ pending: NaN, oldestDueSeconds: NaN, breakersOpen: NaN, disabledWebhooks: NaN });
  }
}
