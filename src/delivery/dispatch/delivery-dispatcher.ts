import { randomBytes } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '../../config/app-config';
import type { DeliveryConfig } from '../../config/delivery-config';
import { PINO } from '../../logging/pino.provider';
import { Metrics } from '../../metrics/metrics';
import { AttemptOutcome } from '../delivery.model';
import { DispatchSignal, Handoff, LocalDispatcher } from '../dispatch-signal';
import { AttemptRecorder } from './attempt-recorder';
import { AttemptRunner } from './attempt-runner';
import { ClaimedDelivery, ClaimRequest, DeliveryQueue, RATE_HORIZON_MS, ScannedWebhook } from './delivery-queue';
import { BreakerState, breakerState } from './endpoint-health';
import { EndpointHealthService } from './endpoint-health.service';
import { fairShares } from './fair-scheduler';
import { RetryPolicy } from './retry-policy';
import { WebhookSlots } from './webhook-slots';

/** docs/api.md 10.5: a claim outlives the attempt's own deadline by this much. */
const LEASE_MARGIN_MS = 30_000;
/** A waiting delivery whose lease has less than its attempt's deadline and this left goes back to the queue. */
const LEASE_SAFETY_MS = 5_000;
const WARN_EVERY_MS = 10_000;

/**
 * Every instance's share of the delivery work (docs/api.md 10.6, 10.10): at most
 * DELIVERY_CONCURRENCY attempts at a time, at most DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK of them to
 * one webhook (WebhookSlots), the slots shared fairly among the webhooks that have due
 * deliveries (fairShares), none to a webhook whose breaker is open.
 *
 * Where the work comes from: ingest hands this instance the deliveries of the events it accepts
 * already claimed (DispatchSignal), which go out at once or wait for their webhook's slot; and
 * a scan of the queue (every DELIVERY_POLL_MS, or soon after a wake: a replay, a test, work
 * that was not handed over) finds the webhooks with due deliveries, which are claimed as
 * slots free up. Each attempt is signed and sent (AttemptRunner), its outcome recorded in
 * batches (AttemptRecorder) with the retry policy's next step, then applied to the endpoint's
 * health (EndpointHealthService). At shutdown it stops claiming, lets the attempts in flight
 * finish (each is bounded by DELIVERY_TIMEOUT_MS), records them and gives back every claim it
 * still holds.
 */
@Injectable()
export class DeliveryDispatcher implements LocalDispatcher, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly config: DeliveryConfig;
  private readonly policy: RetryPolicy;
  private readonly leaseMs: number;
  private readonly token = randomBytes(12).toString('base64url');
  private readonly recorder: AttemptRecorder;
  /**
   * Attempts in flight, from the start (a rate-limited one's from its claim) until the outcome
   * is written, so an instance that dies has made at most DELIVERY_CONCURRENCY attempts whose
   * outcome is not written: the ones another instance makes again.
   */
  private readonly sending = new Map<number, Promise<void>>();
  private readonly healthUpdates = new Set<Promise<void>>();
  private readonly slots = new Map<number, WebhookSlots>();
  /** Webhooks with due deliveries in the queue: found by the last scan, dropped once a claim drains them. */
  private due = new Map<number, ScannedWebhook>();
  /** The breakers known not to be closed: open until then (past it, one attempt may probe). */
  private readonly breakers = new Map<number, number>();
  private adoptions: string[] = [];
  private adoptionsExpected = 0;
  private adopting: Promise<void> = Promise.resolve();
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private poked = false;
  private scanWanted = true;
  private lastScan = { at: 0, tookMs: 0 };
  /** When each kind of warning was last logged: one of each at most every WARN_EVERY_MS. */
  private readonly lastWarnings = new Map<string, number>();

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly runner: AttemptRunner,
    private readonly health: EndpointHealthService,
    private readonly signal: DispatchSignal,
    private readonly metrics: Metrics,
    config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {
    this.config = config.delivery;
    this.policy = new RetryPolicy(this.config.retrySchedule);
    this.leaseMs = this.config.timeoutMs + LEASE_MARGIN_MS;
    this.recorder = new AttemptRecorder(
      (batch) => this.queue.complete(batch, this.token),
      (error, message) => this.warn(error, message),
    );
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
    await this.adopting;
    for (const slots of this.slots.values()) slots.waiting.splice(0);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise((resolve) => (timer = setTimeout(resolve, this.config.timeoutMs + 1000)));
    await Promise.race([Promise.all(this.sending.values()), deadline]);
    clearTimeout(timer);
    // What the database did not take by then is tried once more, not until a lease would end.
    await this.recorder.close();
    await Promise.all(this.sending.values());
    await Promise.all(this.healthUpdates);
    // What is still claimed (handed over but not yet read, or not finished in time) is due again at once.
    await this.queue.releaseAll(this.token, Date.now()).catch((error: unknown) => this.warn(error, 'could not release claims'));
  }

  handoff(): Handoff | undefined {
    if (!this.running || this.sending.size >= this.config.concurrency) return undefined;
    return { token: this.token, leaseUntil: new Date(Date.now() + this.leaseMs) };
  }

  accepted(eventId: string, deliveries: number, handoff: Handoff | undefined): void {
    if (handoff === undefined || handoff.token !== this.token) return this.wake();
    this.adoptions.push(eventId);
    this.adoptionsExpected += deliveries;
    if (this.adoptions.length === 1)
      this.adopting = this.adopting
        .then(() => new Promise((resolve) => setImmediate(resolve)))
        .then(() => this.adopt())
        .catch((error: unknown) => this.warn(error, 'could not take the deliveries handed over'));
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
      await this.fill();
      await this.sleepUntil(this.nextWakeAt());
    }
  }

  /** The webhooks with due deliveries; a scan costs one index seek per webhook, so it runs at most a tenth of the time. */
  private async scan(now: number): Promise<void> {
    this.scanWanted = false;
    try {
      const found = await this.queue.scan(now);
      this.due = new Map(found.map((webhook) => [webhook.webhookId, webhook]));
      for (const { webhookId, breakerOpenUntil } of found) this.noteBreaker(webhookId, breakerOpenUntil);
    } catch (error) {
      this.warn(error, 'could not scan the delivery queue');
    }
    this.lastScan = { at: now, tookMs: Date.now() - now };
  }

  /** Claims due deliveries for the free slots, shared fairly among the due webhooks. */
  private async fill(): Promise<void> {
    const free = this.config.concurrency - this.sending.size;
    if (free <= 0 || this.due.size === 0) return;
    const now = Date.now();
    const room = (webhookId: number): number => this.roomFor(this.due.get(webhookId)!, now);
    const shares = fairShares([...this.due.values()], free, room);
    const requests: ClaimRequest[] = [...shares].map(([webhookId, count]) => {
      const webhook = this.due.get(webhookId)!;
      return { webhookId, count, rateLimit: webhook.rateLimit ?? undefined, probe: this.breakerOf(webhookId, now) === 'probe' };
    });
    if (requests.length === 0) return;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.queue.claim(requests, now, this.leaseMs, this.token);
    } catch (error) {
      this.warn(error, 'could not claim deliveries');
      return;
    }
    this.take(claimed);
    this.afterClaim(requests, claimed, now);
  }

  /** What a claim taught: drained webhooks leave `due`; a rate-limited one waits for its next slot, a probed one for its probe. */
  private afterClaim(requests: readonly ClaimRequest[], claimed: readonly ClaimedDelivery[], now: number): void {
    for (const request of requests) {
      const mine = claimed.filter((delivery) => delivery.webhookId === request.webhookId);
      const webhook = this.due.get(request.webhookId)!;
      // The probe's claim holds the breaker open (takeProbe) until its outcome says otherwise.
      if (request.probe && mine.length > 0) this.breakers.set(request.webhookId, now + this.leaseMs);
      if (request.rateLimit !== undefined && mine.length > 0) {
        const last = Math.max(...mine.map((delivery) => delivery.notBefore ?? now));
        this.due.set(request.webhookId, { ...webhook, rateNextAt: last + 1000 / request.rateLimit });
      } else if (mine.length < request.count) {
        this.due.delete(request.webhookId);
      }
    }
  }

  /** Slots a claim may fill for a due webhook: none while its breaker is open or its next rate slot is far, one to probe it. */
  private roomFor(webhook: ScannedWebhook, now: number): number {
    const slots = this.slotsOf(webhook.webhookId);
    const breaker = this.breakerOf(webhook.webhookId, now);
    if (breaker === 'open') return 0;
    if (breaker === 'probe') return slots.idle ? 1 : 0;
    if (webhook.rateLimit !== null && (webhook.rateNextAt ?? 0) > now + RATE_HORIZON_MS) return 0;
    return slots.free;
  }

  private breakerOf(webhookId: number, now: number): BreakerState {
    return breakerState({ breakerOpenUntil: this.breakers.get(webhookId) ?? null }, now);
  }

  /** The deliveries ingest handed over: each goes out, waits for its webhook's slot, or back to the queue. */
  private async adopt(): Promise<void> {
    const eventIds = this.adoptions.splice(0);
    const expected = this.adoptionsExpected;
    this.adoptionsExpected = 0;
    if (eventIds.length === 0 || !this.running) return;
    let handedOver: ClaimedDelivery[];
    try {
      handedOver = await this.queue.adopt(eventIds, this.token);
    } catch (error) {
      // Their lease gives them back to the queue.
      this.warn(error, 'could not read the deliveries handed over');
      return;
    }
    // Those not handed over (a rate limit, an open breaker) are the claims' to find.
    if (handedOver.length < expected) this.wake();
    this.take(handedOver);
  }

  /** Starts each claimed delivery, or lets it wait for its webhook's slot, or gives it back (its breaker is not closed, or no room). */
  private take(deliveries: readonly ClaimedDelivery[]): void {
    const now = Date.now();
    const back: number[] = [];
    for (const delivery of deliveries) {
      const slots = this.slotsOf(delivery.webhookId);
      if (this.breakerOf(delivery.webhookId, now) !== 'closed' && delivery.probe !== true) back.push(delivery.id);
      else if (slots.hasRoom && this.sending.size < this.config.concurrency) this.start(delivery, slots);
      else if (slots.waiting.length < slots.waitingLimit) slots.waiting.push(delivery);
      else back.push(delivery.id);
    }
    void this.giveBack(back);
  }

  private start(delivery: ClaimedDelivery, slots: WebhookSlots): void {
    slots.inFlight++;
    let holdsSlot = true;
    const releaseSlot = (): void => {
      if (!holdsSlot) return;
      holdsSlot = false;
      slots.inFlight--;
    };
    const attempt = this.attempt(delivery, slots, () => {
      releaseSlot();
      this.startWaiting();
    })
      .catch((error: unknown) => this.logger.error({ err: error, delivery: delivery.id }, 'delivery attempt failed unexpectedly'))
      .finally(() => {
        releaseSlot();
        this.sending.delete(delivery.id);
        this.startWaiting();
        this.poke();
      });
    this.sending.set(delivery.id, attempt);
  }

  /** One attempt and the recording of its outcome; the webhook's slot is freed (`freeSlot`) as soon as the receiver has answered. */
  private async attempt(delivery: ClaimedDelivery, slots: WebhookSlots, freeSlot: () => void): Promise<void> {
    const { target } = delivery;
    if (target === undefined) return this.queue.cancel(delivery.id, this.token);
    // A disabling transaction has failed it already.
    if (target.disabled) return;
    const wait = (delivery.notBefore ?? 0) - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const at = new Date();
    const outcome = await this.runner.run(delivery, target, at);
    this.metrics.attemptMade(outcome);
    slots.observe(outcome.durationMs);
    // A receiver that did not answer keeps its slot until the breaker has counted it: the next attempt waits for that verdict.
    const unanswered = outcome.error === 'timeout' || outcome.error === 'connection failed';
    if (!unanswered) freeSlot();
    if (!(await this.record(delivery, outcome, at))) return;
    const health = this.applyHealth(delivery, outcome, at);
    if (unanswered) await health;
  }

  /** Records the attempt with the retry policy's next step; false when it was not (its claim lost, or the database did not take it). */
  private async record(delivery: ClaimedDelivery, outcome: AttemptOutcome, at: Date): Promise<boolean> {
    const next = this.policy.after(delivery.attempts - delivery.retryFrom + 1, outcome, new Date());
    const record = { ...next, at, durationMs: outcome.durationMs, status: outcome.status, error: outcome.error };
    try {
      return await this.recorder.record(delivery.id, record, delivery.leaseEndsAt);
    } catch (error) {
      this.warn(error, 'could not record a delivery attempt');
      return false;
    }
  }

  /**
   * Applies a recorded attempt to its endpoint's health, outside DELIVERY_CONCURRENCY (the
   * outcome is written already), so that one failing webhook's health transactions never hold
   * the places of the others' attempts; shutdown waits for them.
   */
  private applyHealth(delivery: ClaimedDelivery, outcome: AttemptOutcome, at: Date): Promise<void> {
    const done = this.health
      .afterAttempt(delivery, outcome, at)
      .then((health) => {
        if (health === undefined) return;
        this.noteBreaker(delivery.webhookId, health.breakerOpenUntil);
        // An open breaker sends the webhook's waiting deliveries back: held back, they are not attempts.
        if (health.breakerOpenUntil !== null) this.startWaiting();
      })
      .catch((error: unknown) => this.warn(error, "could not update a webhook's health"));
    this.healthUpdates.add(done);
    void done.finally(() => this.healthUpdates.delete(done));
    return done;
  }

  /** Starts the waiting deliveries that have a slot now, webhook after webhook; gives back those held back or near their lease's end. */
  private startWaiting(): void {
    const now = Date.now();
    const back: number[] = [];
    for (const [webhookId, slots] of this.slots) {
      if (this.breakerOf(webhookId, now) !== 'closed') back.push(...slots.waiting.splice(0).map(({ id }) => id));
      while (slots.waiting.length > 0 && slots.hasRoom && this.sending.size < this.config.concurrency) {
        const delivery = slots.waiting.shift()!;
        if (delivery.leaseEndsAt - now < this.config.timeoutMs + LEASE_SAFETY_MS) back.push(delivery.id);
        else this.start(delivery, slots);
      }
      if (slots.idle) this.slots.delete(webhookId);
    }
    void this.giveBack(back);
  }

  private async giveBack(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.queue.release(ids, this.token, Date.now());
      if (this.running) this.wake();
    } catch (error) {
      // Their lease gives them back.
      this.warn(error, 'could not give deliveries back to the queue');
    }
  }

  /** What the queue or an outcome says of a webhook's breaker: open (or probing) until then, or closed (null). */
  private noteBreaker(webhookId: number, openUntil: number | null): void {
    if (openUntil === null) this.breakers.delete(webhookId);
    else this.breakers.set(webhookId, openUntil);
  }

  private slotsOf(webhookId: number): WebhookSlots {
    let slots = this.slots.get(webhookId);
    if (slots === undefined) {
      slots = new WebhookSlots(this.config.maxInFlightPerWebhook);
      this.slots.set(webhookId, slots);
    }
    return slots;
  }

  private nextScanAllowedAt(): number {
    return this.lastScan.at + Math.min(this.config.pollMs, 10 + 10 * this.lastScan.tookMs);
  }

  /** The next poll; sooner for a wanted scan, a rate limiter's next slot or a breaker's probe (only times ahead count). */
  private nextWakeAt(): number {
    const now = Date.now();
    const soonest = (at: number, time: number) => (time > now ? Math.min(at, time) : at);
    let at = this.lastScan.at + this.config.pollMs;
    if (this.scanWanted) at = Math.min(at, this.nextScanAllowedAt());
    for (const webhook of this.due.values()) {
      if (webhook.rateLimit !== null && webhook.rateNextAt !== null) at = soonest(at, webhook.rateNextAt - RATE_HORIZON_MS);
      at = soonest(at, this.breakers.get(webhook.webhookId) ?? 0);
    }
    return at;
  }

  private poke(): void {
    this.poked = true;
    this.wakeUp?.();
  }

  private sleepUntil(at: number): Promise<void> {
    if (this.poked || !this.running) {
      this.poked = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(finish, Math.max(0, at - Date.now()));
      this.wakeUp = finish;
      function finish() {
        clearTimeout(timer);
        resolve();
      }
    }).then(() => {
      this.wakeUp = undefined;
      this.poked = false;
    });
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
