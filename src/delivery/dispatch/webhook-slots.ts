import type { ClaimedDelivery } from './delivery-queue';

/** A webhook's waiting list holds at most about this much of its work (by its recent attempt times). */
const WAIT_BUDGET_MS = 1000;
const MAX_WAITING = 256;
/** Weight of the newest attempt in the running average of attempt times. */
const SMOOTHING = 0.2;

/**
 * One webhook's share of this instance (docs/api.md 10.10): its attempts in flight, at most
 * DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK, and the deliveries handed over by ingest that wait for one
 * of its slots. The waiting list is kept to about a second of the webhook's own work (fewer for
 * a slow webhook, none for one whose attempts take a second or more): a slow receiver's new
 * deliveries go back to the queue instead of waiting here while their leases run.
 */
export class WebhookSlots {
  inFlight = 0;
  readonly waiting: ClaimedDelivery[] = [];
  private averageMs: number | undefined;

  constructor(private readonly maxInFlight: number) {}

  get hasRoom(): boolean {
    return this.inFlight < this.maxInFlight;
  }

  /** Slots a claim may fill: those neither in flight nor promised to a waiting delivery. */
  get free(): number {
    return Math.max(0, this.maxInFlight - this.inFlight - this.waiting.length);
  }

  get idle(): boolean {
    return this.inFlight === 0 && this.waiting.length === 0;
  }

  /** How many deliveries may wait: a slot's worth until the webhook's attempt times are known. */
  get waitingLimit(): number {
    if (this.averageMs === undefined) return this.maxInFlight;
    return Math.min(MAX_WAITING, Math.floor((this.maxInFlight * WAIT_BUDGET_MS) / Math.max(this.averageMs, 1)));
  }

  observe(durationMs: number): void {
    this.averageMs = this.averageMs === undefined ? durationMs : (1 - SMOOTHING) * this.averageMs + SMOOTHING * durationMs;
  }
}
