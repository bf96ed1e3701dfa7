import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { BatchedLoader } from '../../common/batched-loader';
import { WakeUp } from '../../common/wake-up';
import { AppConfig } from '../../config/app-config';
import type { DeliveryConfig } from '../../config/delivery-config';
import { PINO } from '../../logging/pino.provider';
import { Metrics } from '../../metrics/metrics';
import type { WebhookTarget } from '../../webhooks/webhook-sql';
import { DispatchSignal, Handoff, HandedDelivery, HandedEvent, LocalDispatcher } from '../dispatch-signal';
import { AttemptRecords } from './attempt-records';
import { AttemptRunner } from './attempt-runner';
import { CLAIM_TRANSACTION, ClaimedDelivery, DeliveryQueue, StoredBody } from './delivery-queue';
import { DeliveryTransitions } from './delivery-transitions';
import { DispatchWork } from './dispatch-database';
import { EndpointHealthService } from './endpoint-health.service';
import { HeldClaims } from './held-claims';
import { DispatchScheduler } from './scheduling/dispatch-scheduler';
import { EventBodies } from './scheduling/event-bodies';
import { WebhookDisablingService } from './webhook-disabling.service';
import type { EventTrace } from '../event-trace';

/** docs/api.md 10.5: a claim outlives the attempt's own deadline by this much. */
const LEASE_MARGIN_MS = 30_000;
/** A delivery whose lease has less than its attempt's deadline and this left, when it would start or be sent, goes back to the queue. */
const LEASE_SAFETY_MS = 5_000;
const WARN_EVERY_MS = 10_000;
/** How long ingest may go by one reading of whether this instance takes hand-offs, and of the webhooks it leaves out. */
const HANDOFF_VIEW_MS = 5;

/**
 * Every instance's share of the delivery work (docs/api.md 10.6, 10.10): the I/O shell around
 * DispatchScheduler, the pure core that decides who goes next. The shell reads, sends and
 * writes: it scans the queue for due webhooks (every DELIVERY_POLL_MS, or soon after a wake:
 * a replay, a test, work that was not handed over), claims what the scheduler plans, takes the
 * deliveries ingest hands over with their event's body, starts what the scheduler says may
 * start, and records each attempt.
 *
 * An attempt reads its webhook as stored when it starts (target, secrets, `disabled`: a
 * deleted webhook's delivery is cancelled, a disabled one's failed), holds its event's body from
 * EventBodies (read once per event, within DELIVERY_BUFFER_MB), is signed and sent
 * (AttemptRunner, which reads it once: classify), and recorded (AttemptRecords: in batches, with the retry
 * policy's next step and the endpoint's health; a webhook whose failures disable it is disabled
 * after). The scheduler hears of the answer (its webhook's adaptive limit); the claim's end
 * (HeldClaims, the one place a claim's life is kept) frees its place in DELIVERY_CONCURRENCY. At shutdown
 * it stops claiming, lets the attempts in flight finish (each is bounded by
 * DELIVERY_TIMEOUT_MS), records them and gives back every claim it still holds.
 */
@Injectable()
export class DeliveryDispatcher implements LocalDispatcher, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly config: DeliveryConfig;
  private readonly leaseMs: number;
  /** What a claim's lease must still have for its attempt to be made. */
  private readonly minLeaseLeftMs: number;
  private readonly token = randomBytes(12).toString('base64url');
  private readonly scheduler: DispatchScheduler<ClaimedDelivery>;
  /** The bodies of the events held, each with its trace (docs/api.md 10.17). */
  private readonly bodies: EventBodies<EventTrace>;
  private readonly records: AttemptRecords;
  /** Each webhook as stored now, for the attempts that start: one read for all those that start together. */
  private readonly targets: BatchedLoader<number, (eventType: string) => WebhookTarget | undefined>;
  /** Every delivery this instance holds the claim of, from its claim or hand-off to its end. */
  private readonly claims: HeldClaims;
  /** Attempts from their start until their outcome is written (and claims being given back). */
  private readonly attempts = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private readonly pause = new WakeUp();
  private scanWanted = true;
  private lastScan = { at: 0, tookMs: 0 };
  private handoffView: { at: number; open: boolean; exclude: readonly number[] } = { at: 0, open: false, exclude: [] };
  /** When each kind of warning was last logged: one of each at most every WARN_EVERY_MS. */
  private readonly lastWarnings = new Map<string, number>();

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly transitions: DeliveryTransitions,
    private readonly work: DispatchWork,
    private readonly runner: AttemptRunner,
    health: EndpointHealthService,
    disabling: WebhookDisablingService,
    private readonly signal: DispatchSignal,
    private readonly metrics: Metrics,
    config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {
    this.config = config.delivery;
    this.leaseMs = this.config.timeoutMs + LEASE_MARGIN_MS;
    this.minLeaseLeftMs = this.config.timeoutMs + LEASE_SAFETY_MS;
    this.scheduler = new DispatchScheduler({
      concurrency: this.config.concurrency,
      maxInFlightPerWebhook: this.config.maxInFlightPerWebhook,
      minLeaseLeftMs: this.minLeaseLeftMs,
      sendingBudgetBytes: this.config.bufferBytes,
    });
    this.bodies = new EventBodies(this.config.bufferBytes);
    this.claims = new HeldClaims(this.scheduler, this.bodies, {
      giveBack: async (ids) => {
        await this.transitions.release(ids, this.token, Date.now());
        if (this.running) this.wake();
      },
      cancel: (id) => this.transitions.cancel(id, this.token),
      fail: (id) => this.transitions.failUnattempted(id, this.token),
    });
    this.records = new AttemptRecords({
      transitions,
      work,
      health,
      disabling,
      token: this.token,
      retrySchedule: this.config.retrySchedule,
      warn: (error, message) => this.warn(error, message),
    });
    this.targets = new BatchedLoader((webhookIds) => this.queue.targets(webhookIds));
  }

  onApplicationBootstrap(): void {
    if (this.config.concurrency === 0) return;
    this.running = true;
    this.signal.connect(this);
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.signal.connect(undefined);
    this.poke();
    await this.loop;
    this.giveBack(this.scheduler.drain());
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise((resolve) => (timer = setTimeout(resolve, this.config.timeoutMs + 1000)));
    await Promise.race([Promise.all(this.attempts), deadline]);
    clearTimeout(timer);
    // What the database did not take by then is tried once more, not until a lease would end.
    await this.records.close();
    await Promise.all(this.attempts);
    // What is still claimed (its release or record failed) is due again at once.
    await this.claims.giveBackAll().catch((error: unknown) => this.warn(error, 'could not release claims'));
  }

  handoff(bodyBytes: number): Handoff | undefined {
    if (!this.running || !this.bodies.room(bodyBytes)) return undefined;
    const now = Date.now();
    // What the scheduler says of its places and full lists, read at most once per HANDOFF_VIEW_MS: a busy ingest asks per event.
    if (now - this.handoffView.at >= HANDOFF_VIEW_MS) this.handoffView = { at: now, ...this.scheduler.handoffs(now) };
    if (!this.handoffView.open) return undefined;
    return { token: this.token, leaseUntil: new Date(now + this.leaseMs), exclude: this.handoffView.exclude };
  }

  /** An event committed: the deliveries it handed this instance wait their turn with its body; the others are the scan's to find. */
  accepted(event: HandedEvent, deliveries: number, handoff: Handoff | undefined, handed: readonly HandedDelivery[]): void {
    if (handed.length < deliveries) this.wake();
    if (handoff === undefined || handoff.token !== this.token || handed.length === 0) return;
    const dueAt = Date.now();
    const works = handed.map(({ id, webhookId }): ClaimedDelivery => ({
      id,
      webhookId,
      organizationId: event.organizationId,
      retry: false,
      leaseEndsAt: handoff.leaseUntil.getTime(),
      dueAt,
      attempts: 0,
      retryFrom: 0,
      eventId: event.id,
      eventType: event.type,
      bodyBytes: event.bodyBytes,
    }));
    const fits = this.running && this.bodies.fits(event.id, event.bodyBytes);
    this.claims.hold(works);
    if (!fits) return this.giveBack(works);
    this.bodies.put(event.id, event.body, event.trace);
    this.offer(works);
    this.poke();
  }

  /** Due deliveries may exist that this instance has not seen: scan soon. */
  wake(): void {
    this.scanWanted = true;
    this.poke();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const now = Date.now();
      if (now >= this.lastScan.at + this.config.pollMs || (this.scanWanted && now >= this.nextScanAllowedAt())) await this.scan(now);
      await this.claim();
      this.startWhatMay();
      await this.pause.until(this.scheduler.nextWakeAt(this.nextScanAt(), Date.now()));
    }
  }

  /**
   * The webhooks with due deliveries; a scan costs one index seek per webhook and lane, so it
   * runs at most a tenth of the time. The deliveries it finds left pending on a disabled webhook
   * (their claimer died) are failed.
   */
  private async scan(now: number): Promise<void> {
    this.scanWanted = false;
    try {
      const { due, disabled } = await this.queue.scan(now);
      this.scheduler.setDue(due, now);
      await this.transitions.failLeftPending(disabled, now);
    } catch (error) {
      this.warn(error, 'could not scan the delivery queue');
    }
    this.lastScan = { at: now, tookMs: Date.now() - now };
  }

  /** Claims what the scheduler has room for, within the memory budget for bodies, and reads the bodies not held yet. */
  private async claim(): Promise<void> {
    const now = Date.now();
    const asks = this.scheduler.claimPlan(now);
    if (asks.length === 0) return;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.work.run(
        (tx) => this.queue.claim(tx, asks, now, this.leaseMs, this.token, (candidates) => this.bodies.reserve(candidates)),
        CLAIM_TRANSACTION,
      );
    } catch (error) {
      this.warn(error, 'could not claim deliveries');
      return;
    } finally {
      this.bodies.unreserve();
    }
    this.claims.hold(claimed);
    this.scheduler.afterClaim(asks, claimed, now);
    this.offer(await this.readBodies(claimed));
  }

  /**
   * Reads and opens, once each, the bodies of the events of `claimed` not held yet: the
   * deliveries to hold. A body whose row is gone, does not parse or does not open fails its
   * attempts alone (`internal error`, docs/api.md 10.10); a read that fails (the database) gives
   * its deliveries back unattempted, as the read of their webhooks does.
   */
  private async readBodies(claimed: readonly ClaimedDelivery[]): Promise<readonly ClaimedDelivery[]> {
    const missing = [...new Set(claimed.map(({ eventId }) => eventId))].filter((eventId) => this.bodies.missing(eventId));
    let stored: StoredBody[];
    try {
      stored = await this.queue.bodies(missing);
    } catch (error) {
      this.warn(error, 'could not read event bodies');
      const unread = new Set(missing);
      this.giveBack(claimed.filter(({ eventId }) => unread.has(eventId)));
      return claimed.filter(({ eventId }) => !unread.has(eventId));
    }
    for (const found of stored) {
      const body = this.runner.openBody(found);
      if (body !== undefined) this.bodies.put(found.eventId, body, found.trace);
    }
    return claimed;
  }

  /** Offers held deliveries, their bodies read, to the scheduler; what it cannot hold goes back to the queue. */
  private offer(works: readonly ClaimedDelivery[]): void {
    this.giveBack(this.scheduler.offer(works, Date.now()));
  }

  /** Starts what the scheduler says may start now, reading their webhooks as stored now; gives back what it holds back. */
  private startWhatMay(): void {
    const { start, back } = this.scheduler.nextStarts(Date.now());
    this.giveBack(back);
    this.claims.start(start);
    for (const delivery of start) this.track(this.startOne(delivery));
  }

  /**
   * Reads the delivery's webhook as stored now, waits for its rate slot, if any (handed out at
   * most RATE_HORIZON_MS ahead), and makes the attempt: the read comes first so that the send is
   * on its slot, not a read's time after it.
   */
  private async startOne(delivery: ClaimedDelivery): Promise<void> {
    let target: WebhookTarget | undefined;
    try {
      target = (await this.targets.load(delivery.webhookId))?.(delivery.eventType);
    } catch (error) {
      this.warn(error, 'could not read the webhooks of the attempts to start');
      this.giveBack([delivery]);
      return;
    }
    // A timer may fire a millisecond before the wall clock reaches its slot: wait again until it has.
    const notBefore = delivery.notBefore ?? 0;
    for (let wait = notBefore - Date.now(); wait > 0; wait = notBefore - Date.now()) await sleep(wait);
    await this.attempt(delivery, target);
  }

  /**
   * One attempt, as its webhook is now: cancelled when it is gone, failed when it is disabled,
   * given back when its lease no longer outlasts the attempt (the rate slot and the read took
   * that long) or its rate slot's grace has passed, else sent and recorded. An error of ours
   * before the sending gives the claim back too (due again at once rather than when its lease
   * ends); after it, the claim is left to its lease (sending it again at once would send it twice).
   */
  private async attempt(delivery: ClaimedDelivery, target: WebhookTarget | undefined): Promise<void> {
    try {
      if (target === undefined || target.disabled) {
        await this.claims.end(delivery, target === undefined ? 'cancelled' : 'failed');
        return;
      }
      // Too near its lease's end, or past its rate slot's grace (it would go out beside the next slot's): back to the queue.
      if (delivery.leaseEndsAt - Date.now() < this.minLeaseLeftMs || Date.now() > (delivery.notAfter ?? Infinity)) {
        this.giveBack([delivery]);
        return;
      }
      const at = new Date();
      const outcome = await this.runner.run(delivery, target, this.bodies.get(delivery.eventId), at, this.bodies.about(delivery.eventId));
      this.claims.sent(delivery);
      this.metrics.attemptMade(outcome);
      this.scheduler.answered(delivery, outcome, Date.now());
      if (!outcome.unanswered) this.poke();
      const recorded = await this.records.record(delivery, outcome, at);
      await this.claims.end(delivery, recorded === undefined ? 'unrecorded' : recorded.held ? 'recorded' : 'lost');
      if (recorded?.verdict !== undefined) this.scheduler.noteBreaker(delivery.webhookId, recorded.verdict.health.breakerOpenUntil);
    } catch (error) {
      this.warn(error, 'a delivery attempt failed unexpectedly');
      // Not sent: due again at once. Sent: its lease gives it back, not sooner than a retry would.
      if (this.claims.wasSent(delivery)) await this.claims.end(delivery, 'unrecorded');
      else this.giveBack([delivery]);
    } finally {
      this.poke();
    }
  }

  private track(work: Promise<void>): void {
    this.attempts.add(work);
    void work.finally(() => this.attempts.delete(work));
  }

  /** Claims given back unattempted (held back, no room, a failed read, shutdown): due again at once, for any instance. */
  private giveBack(deliveries: readonly ClaimedDelivery[]): void {
    if (deliveries.length === 0) return;
    // On failure, their lease gives them back (or shutdown, which tries again).
    this.track(this.claims.giveBack(deliveries).catch((error: unknown) => this.warn(error, 'could not give deliveries back to the queue')));
  }

  private nextScanAllowedAt(): number {
    return this.lastScan.at + Math.min(this.config.pollMs, 10 + 10 * this.lastScan.tookMs);
  }

  /** The next poll; sooner for a wanted scan. */
  private nextScanAt(): number {
    const poll = this.lastScan.at + this.config.pollMs;
    return this.scanWanted ? Math.min(poll, this.nextScanAllowedAt()) : poll;
  }

  private poke(): void {
    this.pause.poke();
  }

  private warn(error: unknown, message: string): void {
    const now = Date.now();
    if (now - (this.lastWarnings.get(message) ?? 0) < WARN_EVERY_MS) return;
    this.lastWarnings.set(message, now);
    // The message only (a driver's error may carry its statement); a stack for what is a bug of ours.
    const bug = error instanceof TypeError || error instanceof RangeError || error instanceof ReferenceError;
    this.logger.warn({ err: { message: (error as Error)?.message, ...(bug && { stack: (error as Error).stack }) } }, message);
  }
}
