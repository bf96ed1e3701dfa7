import { Injectable } from '@nestjs/common';
import { DomainError, Errors } from '../../common/domain-error';
import { AppConfig } from '../../config/app-config';
import type { Transaction } from '../../database/unit-of-work';
import { Metrics } from '../../metrics/metrics';
import { EventsRepository } from './events.repository';

/** A count is trusted this long; past it, counted again. */
const COUNT_TTL_MS = 1000;
/** docs/api.md 10.10: when to try again after 429 queue full. */
export const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;
const MAX_TRACKED = 10_000;

/** An organization's last count, when it was made, and whether events were added since (an estimate). */
interface Count {
  pending: number;
  countedAt: number;
  estimate: boolean;
}

/**
 * Backpressure (docs/api.md 10.10): an organization whose pending deliveries and those a request
 * would add are over DELIVERY_PENDING_PER_ORG_MAX gets 429 `queue full` from `POST /events` (a
 * single event counts as one: at the limit it is refused) and `POST /events/batch`, and nothing
 * is stored. Counting an organization's pending deliveries on every event would cost ingest a
 * range scan as long as the backlog, so a count is kept for a second and raised by the
 * deliveries this instance's events add meanwhile (deliveries only leave `pending` otherwise; the
 * few that tests, replays and webhook.disabled events add are in the next count). An
 * organization is refused only after a count says it is full, and that count is trusted for its
 * second too, so that an organization at its limit does not cost a count per request. With
 * several instances, each may add a second's worth of the others' events beyond the limit.
 */
@Injectable()
export class PendingLimit {
  private readonly max: number;
  /** The most deliveries one event adds: one per webhook of its organization. */
  private readonly perEventMax: number;
  private readonly counts = new Map<number, Count>();

  constructor(
    private readonly events: EventsRepository,
    private readonly metrics: Metrics,
    config: AppConfig,
  ) {
    this.max = config.delivery.pendingPerOrgMax;
    this.perEventMax = config.webhooksPerOrgMax;
  }

  /** 429 queue full when the organization is at the limit. */
  async check(organizationId: number, now = Date.now()): Promise<void> {
    if ((await this.over(new Map([[organizationId, 1]]), now)).length > 0) throw this.refusal();
  }

  /** Of the organizations, with the deliveries a request would add to each, those it would take over the limit (counted in one statement). */
  async over(adding: ReadonlyMap<number, number>, now = Date.now()): Promise<number[]> {
    const stale = [...adding].flatMap(([organizationId, added]) => {
      const known = this.counts.get(organizationId);
      const full = known !== undefined && known.pending + added > this.max;
      return known === undefined || now - known.countedAt > COUNT_TTL_MS || (full && known.estimate) ? [organizationId] : [];
    });
    if (stale.length > 0) {
      const counted = await this.events.countPending(stale);
      if (this.counts.size + stale.length > MAX_TRACKED) this.counts.clear();
      for (const organizationId of stale) {
        this.counts.set(organizationId, { pending: counted.get(organizationId) ?? 0, countedAt: now, estimate: false });
      }
    }
    return [...adding].filter(([organizationId, added]) => this.counts.get(organizationId)!.pending + added > this.max).map(([id]) => id);
  }

  /**
   * Of the organizations a batch's new events go to (with how many go to each), those its
   * deliveries would take over the limit. The deliveries (`deliveriesFor`, a statement) are
   * counted only for the organizations that the most they could be would take over it: far from
   * the limit, a batch costs no count of its own. (An organization with more webhooks than
   * WEBHOOKS_PER_ORG_MAX, the variable lowered since, may pass the limit by the difference.)
   */
  async overWithBatch(
    events: ReadonlyMap<number, number>,
    deliveriesFor: (organizations: readonly number[]) => Promise<ReadonlyMap<number, number>>,
    now = Date.now(),
  ): Promise<number[]> {
    const near = await this.over(new Map([...events].map(([organizationId, n]) => [organizationId, n * this.perEventMax])), now);
    if (near.length === 0) return [];
    const deliveries = await deliveriesFor(near);
    return this.over(new Map(near.map((organizationId) => [organizationId, deliveries.get(organizationId) ?? 0])), now);
  }

  /**
   * 429 queue full when `adding` pending deliveries would take the organization past the limit,
   * counted afresh in the caller's transaction: a recovery (docs/api.md 10.14) may make any
   * number pending at once, so an estimate will not do.
   */
  async checkRoom(tx: Transaction, organizationId: number, adding: number): Promise<void> {
    const pending = (await this.events.countPending([organizationId], tx)).get(organizationId) ?? 0;
    if (pending + adding > this.max) throw this.refusal();
  }

  /** The 429 of a request over the limit, `details` naming what it concerns; counted. */
  refusal(...details: string[]): DomainError {
    this.metrics.queueFull();
    return Errors.queueFull(QUEUE_FULL_RETRY_AFTER_SECONDS, ...details);
  }

  /** This instance added `deliveries` pending deliveries for the organization. */
  added(organizationId: number, deliveries: number): void {
    const known = this.counts.get(organizationId);
    if (known === undefined) return;
    known.pending += deliveries;
    known.estimate = true;
  }
}
