import { Injectable } from '@nestjs/common';

/** Deliveries inserted already claimed by this instance's dispatcher: its claim token and the lease's end. */
export interface Handoff {
  readonly token: string;
  readonly leaseUntil: Date;
}

/** What a dispatcher answers to the signal (DeliveryDispatcher). */
export interface LocalDispatcher {
  handoff(): Handoff | undefined;
  accepted(eventId: string, deliveries: number, handoff: Handoff | undefined): void;
  wake(): void;
}

/**
 * What the rest of the delivery feature tells this instance's dispatcher (docs/api.md 10.6).
 * Ingest asks for a handoff and stamps the new deliveries with it, so that the common path
 * needs no claim at all; a replay, a test or an event written with a change wakes it instead.
 * The dispatcher connects itself when it starts; without one (the CLI, DELIVERY_CONCURRENCY=0)
 * nothing is handed over and nothing is woken. A go-between rather than the dispatcher itself,
 * because the dispatcher depends on the services that signal it.
 */
@Injectable()
export class DispatchSignal {
  private dispatcher: LocalDispatcher | undefined;

  connect(dispatcher: LocalDispatcher | undefined): void {
    this.dispatcher = dispatcher;
  }

  /** A claim for the deliveries about to be inserted, or undefined when this instance does not take them now. */
  handoff(): Handoff | undefined {
    return this.dispatcher?.handoff();
  }

  /** An event with `deliveries` deliveries was committed; those stamped with `handoff` are this instance's to attempt. */
  accepted(eventId: string, deliveries: number, handoff: Handoff | undefined): void {
    this.dispatcher?.accepted(eventId, deliveries, handoff);
  }

  /** Deliveries may be due that this instance has not seen: look now rather than at the next poll. */
  wake(): void {
    this.dispatcher?.wake();
  }
}
