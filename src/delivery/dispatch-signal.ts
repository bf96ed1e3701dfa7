import { Injectable } from '@nestjs/common';
import type { EventTrace } from './event-trace';

/** Deliveries inserted already claimed by this instance's dispatcher: its claim token, the lease's end, and the webhooks left out. */
export interface Handoff {
  readonly token: string;
  readonly leaseUntil: Date;
  /** Webhooks whose deliveries stay in the queue (their breaker is not closed, or the dispatcher holds all it may for them). */
  readonly exclude: readonly number[];
}

/** An accepted event as the dispatcher takes it over: its body (held once for all its deliveries) and what it is. */
export interface HandedEvent {
  readonly id: string;
  readonly organizationId: number;
  readonly type: string;
  readonly body: Buffer;
  readonly bodyBytes: number;
  readonly trace: EventTrace;
}

/** A delivery ingest inserted claimed with the handoff's token. */
export interface HandedDelivery {
  readonly id: number;
  readonly webhookId: number;
}

/** What a dispatcher answers to the signal (DeliveryDispatcher). */
export interface LocalDispatcher {
  handoff(bodyBytes: number): Handoff | undefined;
  accepted(event: HandedEvent, deliveries: number, handoff: Handoff | undefined, handed: readonly HandedDelivery[]): void;
  wake(): void;
}

/**
 * What the rest of the delivery feature tells this instance's dispatcher (docs/api.md 10.6).
 * Ingest asks for a handoff and stamps the new deliveries with it, so that the common path
 * needs no claim at all, and hands over the event's body it has in hand; a replay, a test or an
 * event written with a change wakes it instead. The dispatcher connects itself when it starts;
 * without one (the CLI, DELIVERY_CONCURRENCY=0) nothing is handed over and nothing is woken. A
 * go-between rather than the dispatcher itself, because the dispatcher depends on the services
 * that signal it.
 */
@Injectable()
export class DispatchSignal {
  private dispatcher: LocalDispatcher | undefined;

  connect(dispatcher: LocalDispatcher | undefined): void {
    this.dispatcher = dispatcher;
  }

  /** A claim for the deliveries of an event of `bodyBytes` about to be inserted, or undefined when this instance does not take them now. */
  handoff(bodyBytes: number): Handoff | undefined {
    return this.dispatcher?.handoff(bodyBytes);
  }

  /** An event with `deliveries` deliveries was committed; `handed` are those stamped with `handoff`, this instance's to attempt. */
  accepted(event: HandedEvent, deliveries: number, handoff: Handoff | undefined, handed: readonly HandedDelivery[]): void {
    this.dispatcher?.accepted(event, deliveries, handoff, handed);
  }

  /** Deliveries may be due that this instance has not seen: look now rather than at the next poll. */
  wake(): void {
    this.dispatcher?.wake();
  }
}
