import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/domain-error';
import { AppConfig } from '../../config/app-config';
import type { Transaction } from '../../database/unit-of-work';
import { Metrics } from '../../metrics/metrics';
import { EventsRepository } from './events.repository';

/** A count is trusted this long; past it, counted again. */
const COUNT_TTL_MS = 1000;
/** docs/api.md 10.10: when to try again after 429 queue full. */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;
const MAX_TRACKED = 10_000;

/**
 * Backpressure (docs/api.md 10.10): an organization with DELIVERY_PENDING_PER_ORG_MAX pending
 * deliveries gets 429 `queue full` from `POST /events`, and nothing is stored. Counting an
 * organization's pending deliveries on every event would cost ingest a range scan as long as
 * the backlog, so a count is kept for a second and raised by the deliveries this instance's
 * events add meanwhile (deliveries only leave `pending` otherwise; the few that tests, replays
 * and webhook.disabled events add are in the next count). An organization is refused only
 * after a count says it is full, and that count is trusted for its second too, so that an
 * organization at its limit does not cost a count per request. With several instances, each
 * may add a second's worth of the others' events beyond the limit.
 */
@Injectable()
export class PendingLimit {
  private readonly max: number;
  /** Per organization: the last count, when it was made, and whether events were added since (an estimate). */
  private readonly counts = new Map<number, { pending: number; countedAt: number; estimate: boolean }>();

  constructor(
    private readonly events: EventsRepository,
    private readonly metrics: Metrics,
    config: AppConfig,
  ) {
    this.max = config.delivery.pendingPerOrgMax;
  }

  /** 429 queue full when the organization's pending deliveries are at the limit. */
  async check(organizationId: number, now = Date.now()): Promise<void> {
    let known = this.counts.get(organizationId);
    if (known === undefined || now - known.countedAt > COUNT_TTL_MS || (known.pending >= this.max && known.estimate)) {
      known = { pending: await this.events.countPending(organizationId), countedAt: now, estimate: false };
      if (this.counts.size >= MAX_TRACKED) this.counts.clear();
      this.counts.set(organizationId, known);
    }
    if (known.pending < this.max) return;
    this.refuse();
  }

  /**
   * 429 queue full when `adding` pending deliveries would take the organization past the limit,
   * counted afresh in the caller's transaction: a recovery (docs/api.md 10.14) may make any
   * number pending at once, so an estimate will not do.
   */
  async checkRoom(tx: Transaction, organizationId: number, adding: number): Promise<void> {
    if ((await this.events.countPending(organizationId, tx)) + adding > this.max) this.refuse();
  }

  private refuse(): never {
    this.metrics.queueFull();
    throw Errors.queueFull(QUEUE_FULL_RETRY_AFTER_SECONDS);
  }

  /** This instance added `deliveries` pending deliveries for the organization. */
  added(organizationId: number, deliveries: number): void {
    const known = this.counts.get(organizationId);
    if (known === undefined) return;
    known.pending += deliveries;
    known.estimate = true;
  }
}
