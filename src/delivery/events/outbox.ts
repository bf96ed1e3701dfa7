import { Injectable } from '@nestjs/common';
import { SecretBox } from '../../crypto/secret-box';
import type { Transaction } from '../../database/unit-of-work';
import type { SentEventType } from '../../event-types/event-types';
import { Metrics } from '../../metrics/metrics';
import { Tracing } from '../../tracing/tracing';
import { DispatchSignal } from '../dispatch-signal';
import type { AcceptedEventDto } from './dto/event.dto';
import { EventsRepository } from './events.repository';
import { newEvent, serializedEvent } from './new-event';

/** An event the service emits with a change of its own (docs/api.md 10.12). */
export interface EmittedEvent {
  /** One the event catalogue describes (docs/api.md 10.11). */
  readonly type: SentEventType;
  readonly organization: number;
  readonly data: Record<string, unknown>;
  /** Only to the organization's enabled webhooks but this one (webhook.disabled). */
  readonly onlyEnabledExcept?: number;
}

/**
 * The events the service emits itself (docs/api.md 10.12: `card.updated` from `card
 * set-status`, `webhook.disabled`), written in the transaction of the change that causes them:
 * if the process dies at any point, either both exist or neither does. The event and its
 * fan-out are ingest's own statements; once the change commits, this instance's dispatcher is
 * woken for its deliveries (the CLI has none: the servers' dispatchers find them).
 */
@Injectable()
export class Outbox {
  constructor(
    private readonly events: EventsRepository,
    private readonly secrets: SecretBox,
    private readonly dispatch: DispatchSignal,
    private readonly metrics: Metrics,
    private readonly tracing: Tracing,
  ) {}

  async emit(tx: Transaction, emitted: EmittedEvent): Promise<AcceptedEventDto> {
    const trace = this.tracing.newEventTrace('event emitted', { 'event.type': emitted.type, 'organization.id': emitted.organization });
    const { event } = newEvent(this.secrets, serializedEvent(emitted.type, emitted.organization, emitted.data), trace);
    const { deliveries } = await this.events.insertIn(tx, event, { onlyEnabledExcept: emitted.onlyEnabledExcept });
    tx.afterCommit(() => {
      this.metrics.eventAccepted(emitted.type, 'service');
      if (deliveries > 0) this.dispatch.wake();
    });
    return { id: event.id, deliveries };
  }
}
