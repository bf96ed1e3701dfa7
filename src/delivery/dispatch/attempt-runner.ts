import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { version } from '../../../package.json';
import { AppConfig } from '../../config/app-config';
import { SecretBox } from '../../crypto/secret-box';
import { PINO } from '../../logging/pino.provider';
import type { TraceContext } from '../../tracing/trace-context';
import { Tracing } from '../../tracing/tracing';
import type { WebhookTarget } from '../../webhooks/webhook-sql';
import { type AttemptCredentials, TargetCredentials } from '../../webhooks/target-credentials';
import { eventPayloadBinding } from '../delivery.model';
import { derivedTrace, type EventTrace } from '../event-trace';
import { type AttemptOutcome, classify, type ClassifiedOutcome } from './attempt-outcome';
import type { ClaimedDelivery, StoredBody } from './delivery-queue';
import { webhookSignature } from './webhook-signature';
import { WebhookSender } from './webhook-sender';

const USER_AGENT = `platform-api/${version}`;
const NOT_MADE: AttemptOutcome = { kind: 'not made', durationMs: 0 };

/**
 * One attempt (docs/api.md 10.3): the webhook's live credentials opened (TargetCredentials), the
 * event's body (opened once for all its deliveries, `openBody`) signed afresh for this moment, sent by WebhookSender
 * under the attempt's span (10.17), and read once (classify). An attempt that cannot be made
 * because a secret or the body no longer opens (a key gone, a row tampered with) is a failed
 * attempt `internal error` that follows the schedule like any other (docs/api.md 10.10): its
 * outcome is `not made`.
 */
@Injectable()
export class AttemptRunner {
  /** A 2xx slower than this does not let the webhook's limit of attempts in flight grow. */
  private readonly inTimeMs: number;

  constructor(
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    private readonly credentials: TargetCredentials,
    private readonly tracing: Tracing,
    @Inject(PINO) private readonly logger: Logger,
    config: AppConfig,
  ) {
    this.inTimeMs = config.delivery.timeoutMs / 2;
  }

  /** An event's body as every attempt sends it, or undefined when it no longer opens. */
  openBody(stored: StoredBody): Buffer | undefined {
    try {
      return Buffer.from(this.secrets.open(stored.payload, eventPayloadBinding(stored.organizationId, stored.eventId)));
    } catch (error) {
      this.logger.error({ event: stored.eventId, err: { message: (error as Error).message } }, "an event's body could not be opened");
      return undefined;
    }
  }

  /**
   * The attempt, classified. `body` undefined: the event's body could not be read or opened.
   * `event`: the event's trace (docs/api.md 10.17; undefined: one accepted before traces were
   * kept, whose trace is derived from its id), where the attempt's span goes.
   */
  async run(
    delivery: ClaimedDelivery,
    target: WebhookTarget,
    body: Buffer | undefined,
    at: Date,
    event: EventTrace | undefined,
  ): Promise<ClassifiedOutcome> {
    const span = this.tracing.attemptSpan(event ?? derivedTrace(delivery.eventId), () => ({
      deliveryId: delivery.id,
      eventId: delivery.eventId,
      attempt: delivery.attempts + 1,
      url: target.url,
    }));
    let outcome: ClassifiedOutcome | undefined;
    try {
      outcome = classify(await this.made(delivery, target, body, at, span.context), this.inTimeMs);
      return outcome;
    } finally {
      span.end(outcome ?? { ok: false, status: null, error: null });
    }
  }

  private async made(
    delivery: ClaimedDelivery,
    target: WebhookTarget,
    body: Buffer | undefined,
    at: Date,
    trace: TraceContext,
  ): Promise<AttemptOutcome> {
    if (body === undefined) return NOT_MADE;
    let credentials: AttemptCredentials;
    try {
      credentials = this.credentials.open(delivery.organizationId, target, at);
    } catch (error) {
      this.logger.error({ delivery: delivery.id, err: { message: (error as Error).message } }, 'a delivery attempt could not be made');
      return NOT_MADE;
    }
    const { signingSecrets, headers, auth } = credentials;
    return this.sender.send({
      organizationId: delivery.organizationId,
      url: target.url,
      headers: {
        // The webhook's own headers (docs/api.md 10.15), beside the signed ones; their values are credentials, never logged.
        ...headers,
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': delivery.eventId,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': webhookSignature(signingSecrets, delivery.eventId, at, body),
      },
      body,
      trace,
      ...(auth !== undefined && { credentials: { webhookId: delivery.webhookId, auth } }),
    });
  }
}
