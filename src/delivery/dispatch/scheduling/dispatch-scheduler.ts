import { AdaptiveLimit, LimitSignal } from './adaptive-limit';
import { BreakerState, breakerStateAt } from './endpoint-health';

/** A rate-limited webhook's slots are handed out this far ahead: claimed deliveries wait at most this for theirs. */
export const RATE_HORIZON_MS = 200;
/** A webhook may hold, besides its attempts in flight, about this much of its own work claimed and waiting. */
const WAIT_BUDGET_MS = 1000;
const MAX_WAITING = 256;
/** Weight of the newest attempt in a webhook's running average of attempt times. */
const SMOOTHING = 0.2;
/** A webhook's state (its limit, its breaker as last seen) is forgotten after this long without work. */
const IDLE_FORGET_MS = 10 * 60_000;

/** A delivery this instance holds the claim of, as the scheduler sees it. */
export interface Work {
  readonly id: number;
  readonly webhookId: number;
  readonly organizationId: number;
  /** A scheduled retry or a recovered delivery (the backlog); false for a first attempt, a test or a replay. */
  readonly retry: boolean;
  /** When the claim's lease ends (ms since the epoch). */
  readonly leaseEndsAt: number;
  /** Its event body's size: what sending it takes, beside what holding the body takes. */
  readonly bodyBytes: number;
  /** The breaker's probe: it starts though the breaker is not closed. */
  readonly probe?: boolean;
}

/** A webhook with due deliveries in the queue, as the scan found it. */
export interface DueWebhook {
  readonly webhookId: number;
  readonly organizationId: number;
  /** When its oldest due first attempt became due (null: none is due). */
  readonly freshDueAt: number | null;
  /** When its oldest due retry became due (null: none is due). */
  readonly retryDueAt: number | null;
  readonly rateLimit: number | null;
  /** The rate limiter's next free slot (null: idle). */
  readonly rateNextAt: number | null;
  /** The breaker holds attempts back until then (null: closed); past it, one may probe. */
  readonly breakerOpenUntil: number | null;
  /** Its deliveries go one at a time, in order (docs/api.md 10.18). */
  readonly ordered: boolean;
}

/** What a claim asks of one webhook: up to `fresh` due first attempts and up to `retries` due retries, oldest first. */
export interface ClaimAsk {
  readonly webhookId: number;
  readonly fresh: number;
  readonly retries: number;
  readonly rateLimit?: number;
  /** The breaker's cool-down is over: the one delivery claimed probes it, unless another instance took the probe. */
  readonly probe?: boolean;
  /** An ordered webhook: the one delivery claimed is the head of its order, if it is due and no instance holds it. */
  readonly ordered?: boolean;
}

/** How an attempt ended, for the scheduler: its limit's signal, and whether the receiver answered at all. */
export interface AttemptResult {
  readonly limit: LimitSignal;
  /** A timeout or a connection that failed: its webhook's slot waits for the breaker's verdict (`finished`). */
  readonly unanswered: boolean;
  readonly durationMs: number;
}

export interface SchedulerConfig {
  /** DELIVERY_CONCURRENCY: attempts started and not yet recorded. */
  readonly concurrency: number;
  readonly maxInFlightPerWebhook: number;
  /** A claimed delivery whose lease has less than this left is given back rather than started. */
  readonly minLeaseLeftMs: number;
  /** The bodies being sent at once, in bytes (DELIVERY_BUFFER_MB): each attempt's request holds its own copy on the wire. */
  readonly sendingBudgetBytes: number;
}

class WebhookState<T extends Work> {
  readonly limit: AdaptiveLimit;
  inFlight = 0;
  readonly fresh: T[] = [];
  readonly retries: T[] = [];
  due: DueWebhook | undefined;
  breakerOpenUntil: number | null = null;
  /** One attempt at a time, in order (docs/api.md 10.18), as the last scan found it. */
  ordered = false;
  averageMs: number | undefined;
  lastActiveAt: number;
  /** When it last started an attempt: within its organization, the webhook that started least recently goes next. */
  lastStartAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly webhookId: number,
    readonly organizationId: number,
    maxInFlight: number,
    now: number,
  ) {
    this.limit = new AdaptiveLimit(maxInFlight);
    this.lastActiveAt = now;
  }

  get waiting(): number {
    return this.fresh.length + this.retries.length;
  }

  /** Attempts in flight it may have now: its adaptive limit, or one for an ordered webhook. */
  get inFlightLimit(): number {
    return this.ordered ? 1 : this.limit.current;
  }

  /** Attempts in flight and deliveries waiting it may hold: its limit and about a second of its work besides; an ordered one, its head. */
  get depth(): number {
    if (this.ordered) return 1;
    const limit = this.limit.current;
    const waiting = this.averageMs === undefined ? limit : Math.floor((limit * WAIT_BUDGET_MS) / Math.max(this.averageMs, 1));
    return limit + Math.min(MAX_WAITING, waiting);
  }

  get idle(): boolean {
    return this.inFlight === 0 && this.waiting === 0;
  }
}

interface Started {
  readonly at: number;
  /** Its webhook used its whole limit, or had more waiting, when it started: a success in time may raise the limit. */
  readonly saturated: boolean;
  /** 'answered': its webhook's slot is free already; 'unanswered': it waits for the outcome to be written. */
  answer?: 'answered' | 'unanswered';
}

/**
 * Who goes next (docs/api.md 10.10), as plain rules over the instance's state and a clock: the
 * pure core of the dispatcher, which only reads, sends and writes around it.
 *
 * - Every delivery this instance holds, claimed from the queue or handed over by ingest, waits
 *   in its webhook's lists (first attempts, then retries) and starts only through `nextStarts`:
 *   the organizations take turns, and within one its webhooks, whatever the work's source.
 * - A webhook has at most its AdaptiveLimit in flight, none while its breaker is open but the
 *   probe, and holds at most `depth` deliveries.
 * - The last eighth of DELIVERY_CONCURRENCY goes only to organizations with fewer attempts than
 *   that in flight, so that an organization with little work always finds a place at once
 *   beside one with a flood, slow receivers or a name server that stopped answering; the last
 *   quarter goes only to first attempts, so that a backlog of retries (after an outage, a
 *   recovery) never keeps fresh events waiting. Any other capacity goes to whoever has work.
 * - Claims (`claimPlan`) ask the queue for what the lists have room for, under the same rules.
 */
export class DispatchScheduler<T extends Work> {
  private readonly webhooks = new Map<number, WebhookState<T>>();
  private readonly webhooksOf = new Map<number, Set<WebhookState<T>>>();
  /** Organizations in turn order: the one that started an attempt last goes to the back. */
  private readonly turns: number[] = [];
  private readonly started = new Map<number, Started>();
  /** Started and not yet finished, per organization. */
  private readonly activeOf = new Map<number, number>();
  private activeCount = 0;
  /** The bytes of the bodies of the attempts started and not yet answered. */
  private sendingBytes = 0;
  private readonly shareReserve: number;
  private readonly freshReserve: number;

  constructor(private readonly config: SchedulerConfig) {
    this.shareReserve = Math.floor(config.concurrency / 8);
    this.freshReserve = Math.floor(config.concurrency / 4);
  }

  /** Attempts started and not yet finished (their outcome not yet written). */
  get active(): number {
    return this.activeCount;
  }

  /** Deliveries held and not started. */
  get waiting(): number {
    let n = 0;
    for (const webhook of this.webhooks.values()) n += webhook.waiting;
    return n;
  }

  /**
   * Whether ingest may hand this instance the deliveries of new events (`open`: it has places
   * for them soon), and the webhooks whose deliveries it leaves in the queue: the ordered ones
   * (their deliveries wait for their turn there), those whose lists are full or whose breaker is
   * not closed, and, once only the reserve is free, those of the
   * organizations that cannot start in it. So a light organization's event is handed over
   * whatever a heavy one holds.
   */
  handoffs(now: number): { readonly open: boolean; readonly exclude: number[] } {
    const free = this.free();
    const exclude = [...this.webhooks.values()].filter(
      (w) =>
        w.ordered ||
        w.inFlight + w.waiting >= w.depth ||
        breakerStateAt(w.breakerOpenUntil, now) !== 'closed' ||
        (free <= this.shareReserve && this.isHeavy(w.organizationId)),
    );
    return { open: free > 0, exclude: exclude.map((w) => w.webhookId) };
  }

  /**
   * The places a light organization may still take: DELIVERY_CONCURRENCY less those taken or
   * about to be (the attempts in flight, and the deliveries waiting that their webhook's limit
   * lets start now; those waiting beyond it hold no place, so a slow webhook's list keeps nobody
   * else from being claimed). The heavy organizations can never start in the reserve (`pick`),
   * so what they hold counts as all but the reserve at most: however much a flood, a slow
   * receiver or a name server that stopped answering holds, at any DELIVERY_CONCURRENCY, a light
   * organization finds the reserve free for its claims and its hand-offs. A heavy organization
   * may take a place only while more than the reserve is free.
   */
  private free(): number {
    let heavy = 0;
    let light = 0;
    const heavyOrganizations = new Map<number, boolean>();
    const add = (organizationId: number, places: number) => {
      let isHeavy = heavyOrganizations.get(organizationId);
      if (isHeavy === undefined) heavyOrganizations.set(organizationId, (isHeavy = this.isHeavy(organizationId)));
      if (isHeavy) heavy += places;
      else light += places;
    };
    for (const [organizationId, active] of this.activeOf) add(organizationId, active);
    for (const webhook of this.webhooks.values()) {
      if (webhook.waiting > 0)
        add(webhook.organizationId, Math.min(webhook.waiting, Math.max(0, webhook.inFlightLimit - webhook.inFlight)));
    }
    return this.config.concurrency - Math.min(heavy, this.config.concurrency - this.shareReserve) - light;
  }

  /** An organization with the reserve's worth or more in flight and waiting: it may not take the reserve's places. */
  private isHeavy(organizationId: number): boolean {
    return this.loadOf(organizationId) >= this.shareReserve;
  }

  breakerOf(webhookId: number, now: number): BreakerState {
    return breakerStateAt(this.webhooks.get(webhookId)?.breakerOpenUntil ?? null, now);
  }

  /** What the queue or an outcome says of a webhook's breaker: open (or probing) until then, or closed (null). */
  noteBreaker(webhookId: number, openUntil: number | null): void {
    const webhook = this.webhooks.get(webhookId);
    if (webhook !== undefined) webhook.breakerOpenUntil = openUntil;
  }

  /** The scan's due webhooks replace the last ones; their breakers are as the queue says; long-idle state is forgotten. */
  setDue(found: readonly DueWebhook[], now: number): void {
    for (const webhook of this.webhooks.values()) webhook.due = undefined;
    for (const due of found) {
      const webhook = this.stateOf(due.webhookId, due.organizationId, now);
      webhook.due = due;
      webhook.breakerOpenUntil = due.breakerOpenUntil;
      webhook.ordered = due.ordered;
    }
    for (const webhook of this.webhooks.values()) {
      if (webhook.idle && webhook.due === undefined && now - webhook.lastActiveAt > IDLE_FORGET_MS) this.forget(webhook);
    }
  }

  /**
   * What to claim from the queue: the free places, by turns of the organizations and then of
   * their webhooks, one at a time, each webhook up to its room; retries only while more than
   * the quarter kept for first attempts is free.
   */
  claimPlan(now: number): ClaimAsk[] {
    let free = this.free();
    const due = [...this.webhooks.values()].filter((w) => w.due !== undefined).sort((a, b) => dueAt(a) - dueAt(b));
    if (free <= 0 || due.length === 0) return [];
    const turns = new Map<number, { webhooks: WebhookState<T>[]; next: number; claimed: number }>();
    for (const webhook of due) {
      const turn = turns.get(webhook.organizationId) ?? { webhooks: [], next: 0, claimed: 0 };
      turn.webhooks.push(webhook);
      turns.set(webhook.organizationId, turn);
    }
    const asks = new Map<number, { fresh: number; retries: number }>();
    for (let gave = true; free > 0 && gave;) {
      gave = false;
      for (const [organizationId, turn] of turns) {
        if (free <= 0) break;
        if (this.loadOf(organizationId) + turn.claimed >= this.shareReserve && free <= this.shareReserve) continue;
        for (let i = 0; i < turn.webhooks.length; i++) {
          const webhook = turn.webhooks[(turn.next + i) % turn.webhooks.length];
          const ask = asks.get(webhook.webhookId) ?? { fresh: 0, retries: 0 };
          const lane = this.laneToClaim(webhook, ask, free, now);
          if (lane === undefined) continue;
          ask[lane]++;
          asks.set(webhook.webhookId, ask);
          turn.next = (turn.next + i + 1) % turn.webhooks.length;
          turn.claimed++;
          free--;
          gave = true;
          break;
        }
      }
    }
    return [...asks].map(([webhookId, { fresh, retries }]) => {
      const { due, breakerOpenUntil } = this.webhooks.get(webhookId)!;
      return {
        webhookId,
        fresh,
        retries,
        rateLimit: due!.rateLimit ?? undefined,
        probe: breakerStateAt(breakerOpenUntil, now) === 'probe',
        ...(due!.ordered && { ordered: true }),
      };
    });
  }

  /**
   * What a claim taught: a lane that gave fewer than asked is drained until the next scan; a
   * rate-limited webhook waits for its next slot; a probed one holds its breaker open until the
   * probe's outcome (its claim's lease at the latest).
   */
  afterClaim(asks: readonly ClaimAsk[], got: readonly (T & { notBefore?: number })[], now: number): void {
    for (const ask of asks) {
      const webhook = this.webhooks.get(ask.webhookId);
      if (webhook?.due === undefined) continue;
      const mine = got.filter((work) => work.webhookId === ask.webhookId);
      if (ask.probe === true && mine.length > 0) webhook.breakerOpenUntil = mine[0].leaseEndsAt;
      if (ask.rateLimit !== undefined && mine.length > 0) {
        const last = Math.max(...mine.map((work) => work.notBefore ?? now));
        webhook.due = { ...webhook.due, rateNextAt: last + 1000 / ask.rateLimit };
        continue;
      }
      const fresh = mine.filter((work) => !work.retry).length;
      const drained = {
        freshDueAt: fresh < ask.fresh ? null : webhook.due.freshDueAt,
        retryDueAt: mine.length - fresh < ask.retries ? null : webhook.due.retryDueAt,
      };
      webhook.due = drained.freshDueAt === null && drained.retryDueAt === null ? undefined : { ...webhook.due, ...drained };
    }
  }

  /**
   * Takes claimed deliveries into their webhooks' lists; those it cannot hold are to be given
   * back: held back by the breaker, or past the webhook's depth (the retries it holds do not
   * count against a first attempt).
   */
  offer(works: readonly T[], now: number): T[] {
    const back: T[] = [];
    for (const work of works) {
      const webhook = this.stateOf(work.webhookId, work.organizationId, now);
      const closed = breakerStateAt(webhook.breakerOpenUntil, now) === 'closed';
      const held = webhook.inFlight + (work.retry ? webhook.waiting : webhook.fresh.length);
      if ((!closed && work.probe !== true) || held >= webhook.depth) back.push(work);
      else (work.retry ? webhook.retries : webhook.fresh).push(work);
    }
    return back;
  }

  /**
   * The deliveries to start now, by turns, within DELIVERY_CONCURRENCY and each webhook's limit;
   * and those to give back: held back by an open breaker, or too near their lease's end.
   */
  nextStarts(now: number): { start: T[]; back: T[] } {
    const start: T[] = [];
    const back: T[] = [];
    for (const webhook of this.webhooks.values()) {
      if (webhook.waiting === 0 || breakerStateAt(webhook.breakerOpenUntil, now) === 'closed') continue;
      for (const list of [webhook.fresh, webhook.retries]) back.push(...takeWhere(list, (work) => work.probe !== true));
    }
    while (this.activeCount < this.config.concurrency) {
      const picked = this.pick(now);
      if (picked === undefined) break;
      const [webhook, list] = picked;
      // The bodies on the wire stay within the budget (one body larger than it goes alone): the rest waits for answers.
      if (this.sendingBytes > 0 && this.sendingBytes + list[0].bodyBytes > this.config.sendingBudgetBytes) break;
      const work = list.shift()!;
      if (work.leaseEndsAt - now < this.config.minLeaseLeftMs) {
        back.push(work);
        continue;
      }
      this.sendingBytes += work.bodyBytes;
      webhook.inFlight++;
      webhook.lastActiveAt = now;
      webhook.lastStartAt = now;
      this.activeCount++;
      this.activeOf.set(work.organizationId, (this.activeOf.get(work.organizationId) ?? 0) + 1);
      this.started.set(work.id, { at: now, saturated: webhook.inFlight >= webhook.inFlightLimit || webhook.waiting > 0 });
      this.toBackOfTurns(work.organizationId);
      start.push(work);
    }
    return { start, back };
  }

  /**
   * The receiver answered, or failed to: the webhook's limit learns from it, and its slot is free,
   * unless it waits for the outcome to be written: nobody answered (the breaker's verdict), or
   * the webhook is ordered (its next delivery is the head only once this one is recorded).
   */
  answered(work: T, result: AttemptResult, now: number): void {
    const started = this.started.get(work.id);
    if (started === undefined || started.answer !== undefined) return;
    this.sendingBytes -= work.bodyBytes;
    const webhook = this.webhooks.get(work.webhookId);
    started.answer = result.unanswered || webhook?.ordered === true ? 'unanswered' : 'answered';
    if (webhook === undefined) return;
    webhook.limit.observe(result.limit, started.at, started.saturated, now);
    webhook.averageMs =
      webhook.averageMs === undefined ? result.durationMs : (1 - SMOOTHING) * webhook.averageMs + SMOOTHING * result.durationMs;
    if (started.answer === 'answered') webhook.inFlight--;
    webhook.lastActiveAt = now;
  }

  /** The attempt's outcome is written (or it was never made): its place in DELIVERY_CONCURRENCY, and a slot kept for the breaker's verdict, are free. */
  finished(work: T): void {
    const started = this.started.get(work.id);
    if (started === undefined) return;
    this.started.delete(work.id);
    if (started.answer === undefined) this.sendingBytes -= work.bodyBytes;
    const webhook = this.webhooks.get(work.webhookId);
    if (webhook !== undefined && started.answer !== 'answered') webhook.inFlight--;
    this.activeCount--;
    const left = (this.activeOf.get(work.organizationId) ?? 1) - 1;
    if (left > 0) this.activeOf.set(work.organizationId, left);
    else this.activeOf.delete(work.organizationId);
  }

  /** Empties every list (shutdown): the deliveries to give back. */
  drain(): T[] {
    const all: T[] = [];
    for (const webhook of this.webhooks.values()) all.push(...webhook.fresh.splice(0), ...webhook.retries.splice(0));
    return all;
  }

  /** When a rate limiter's next slot or a breaker's probe comes due, if sooner than `at`. */
  nextWakeAt(at: number, now: number): number {
    for (const webhook of this.webhooks.values()) {
      const { due } = webhook;
      if (due !== undefined && due.rateLimit !== null && due.rateNextAt !== null && due.rateNextAt - RATE_HORIZON_MS > now) {
        at = Math.min(at, due.rateNextAt - RATE_HORIZON_MS);
      }
      if (due !== undefined && webhook.breakerOpenUntil !== null && webhook.breakerOpenUntil > now) {
        at = Math.min(at, webhook.breakerOpenUntil);
      }
    }
    return at;
  }

  /** A webhook's limit of attempts in flight now (for the metrics and the tests). */
  limitOf(webhookId: number): number | undefined {
    return this.webhooks.get(webhookId)?.limit.current;
  }

  /** The next organization in turn with a webhook that may start one of its deliveries now, and that delivery's list. */
  private pick(now: number): [WebhookState<T>, T[]] | undefined {
    const free = this.config.concurrency - this.activeCount;
    for (const organizationId of this.turns) {
      if ((this.activeOf.get(organizationId) ?? 0) >= this.shareReserve && free <= this.shareReserve) continue;
      const found = this.startableOf(organizationId, now, free);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Of one organization's webhooks, the one whose turn it is that may start a delivery now, first attempts first. */
  private startableOf(organizationId: number, now: number, free: number): [WebhookState<T>, T[]] | undefined {
    let best: WebhookState<T> | undefined;
    for (const webhook of this.webhooksOf.get(organizationId) ?? []) {
      if (webhook.waiting === 0) continue;
      const probing = breakerStateAt(webhook.breakerOpenUntil, now) !== 'closed';
      if (probing ? webhook.inFlight > 0 : webhook.inFlight >= webhook.inFlightLimit) continue;
      if (webhook.fresh.length === 0 && free <= this.freshReserve) continue;
      if (best === undefined || webhook.lastStartAt < best.lastStartAt) best = webhook;
    }
    if (best === undefined) return undefined;
    return [best, best.fresh.length > 0 ? best.fresh : best.retries];
  }

  private forget(webhook: WebhookState<T>): void {
    this.webhooks.delete(webhook.webhookId);
    const siblings = this.webhooksOf.get(webhook.organizationId)!;
    siblings.delete(webhook);
    if (siblings.size > 0) return;
    this.webhooksOf.delete(webhook.organizationId);
    this.turns.splice(this.turns.indexOf(webhook.organizationId), 1);
  }

  private toBackOfTurns(organizationId: number): void {
    const at = this.turns.indexOf(organizationId);
    if (at >= 0) this.turns.splice(at, 1);
    this.turns.push(organizationId);
  }

  private stateOf(webhookId: number, organizationId: number, now: number): WebhookState<T> {
    let webhook = this.webhooks.get(webhookId);
    if (webhook === undefined) {
      webhook = new WebhookState<T>(webhookId, organizationId, this.config.maxInFlightPerWebhook, now);
      this.webhooks.set(webhookId, webhook);
      let siblings = this.webhooksOf.get(organizationId);
      if (siblings === undefined) {
        siblings = new Set();
        this.webhooksOf.set(organizationId, siblings);
        this.turns.push(organizationId);
      }
      siblings.add(webhook);
    }
    return webhook;
  }

  /** An organization's attempts in flight and deliveries waiting. */
  private loadOf(organizationId: number): number {
    let load = this.activeOf.get(organizationId) ?? 0;
    for (const webhook of this.webhooksOf.get(organizationId) ?? []) load += webhook.waiting;
    return load;
  }

  /**
   * Which of a due webhook's lanes one more claimed delivery comes from, if any: none while its
   * breaker is open or its next rate slot is far, one in all to probe it; first attempts up to
   * its depth (the retries it holds do not count against them), then retries up to its depth,
   * and only while more than the places kept for first attempts are free.
   */
  private laneToClaim(
    webhook: WebhookState<T>,
    ask: { fresh: number; retries: number },
    free: number,
    now: number,
  ): 'fresh' | 'retries' | undefined {
    const due = webhook.due!;
    const breaker = breakerStateAt(webhook.breakerOpenUntil, now);
    if (breaker === 'open') return undefined;
    if (due.rateLimit !== null && (due.rateNextAt ?? 0) > now + RATE_HORIZON_MS) return undefined;
    const asked = ask.fresh + ask.retries;
    // A probe, or an ordered webhook's head: one delivery, and only while it holds none.
    if (breaker === 'probe' || due.ordered) {
      if (asked > 0 || !webhook.idle) return undefined;
      return due.freshDueAt !== null ? 'fresh' : 'retries';
    }
    const room = webhook.depth - webhook.inFlight;
    if (due.freshDueAt !== null && webhook.fresh.length + ask.fresh < room) return 'fresh';
    if (due.retryDueAt !== null && webhook.waiting + asked < room && free > this.freshReserve) return 'retries';
    return undefined;
  }
}

const dueAt = (webhook: { due?: DueWebhook }): number =>
  Math.min(webhook.due?.freshDueAt ?? Number.POSITIVE_INFINITY, webhook.due?.retryDueAt ?? Number.POSITIVE_INFINITY);

/** Removes and returns the items of `list` that `where` picks, keeping the others in order. */
function takeWhere<T>(list: T[], where: (item: T) => boolean): T[] {
  const taken = list.filter(where);
  const kept = list.filter((item) => !where(item));
  list.splice(0, list.length, ...kept);
  return taken;
}
