import type { ClaimedDelivery } from './delivery-queue';
import type { DispatchScheduler } from './scheduling/dispatch-scheduler';
import type { EventBodies } from './scheduling/event-bodies';

/**
 * Where a claim is in its life on this instance:
 * - `held`: claimed or handed over, its event's body held, waiting in the scheduler's lists;
 * - `started`: the scheduler let it start, so it holds a place of DELIVERY_CONCURRENCY (its
 *   webhook is being read, its rate slot waited for);
 * - `sent`: its attempt was made (the runner gave its outcome), so it can never be given back
 *   (it would be sent twice);
 * - `left`: its place and body are let go, but the queue may still show it as this instance's:
 *   its outcome could not be written, or its release is on its way. Kept until the release is
 *   written, or shutdown gives it back; else its lease does.
 */
type ClaimState = 'held' | 'started' | 'sent' | 'left';

/**
 * Every way a claim ends, and the states it may end from:
 * - `given back` (held, started; left, at shutdown): unattempted (held back, no room, a lease too
 *   short, a rate slot missed, a read that failed, an error of ours before the sending, shutdown):
 *   due again at once, for any instance;
 * - `cancelled` (started): unattempted, its webhook gone (docs/api.md 10.2);
 * - `failed` (started): unattempted, its webhook disabled (docs/api.md 10.10);
 * - `recorded` (sent): its attempt's outcome is written;
 * - `lost` (sent): its lease had run out and another claimer had it when its outcome came to be
 *   written: nothing is written, the other claimer's attempt counts;
 * - `unrecorded` (sent): its outcome could not be written: it is `left`.
 */
export type ClaimEnd = 'given back' | 'cancelled' | 'failed' | 'recorded' | 'lost' | 'unrecorded';

const ENDS_FROM: Readonly<Record<ClaimState, readonly ClaimEnd[]>> = {
  held: ['given back'],
  started: ['given back', 'cancelled', 'failed'],
  sent: ['recorded', 'lost', 'unrecorded'],
  left: ['given back'],
};

/** What ending a claim writes to the queue (its token is the writer's to add). */
export interface ClaimWrites {
  /** Gives claims back, due at once, in one statement however many; resolves when written. */
  giveBack(ids: readonly number[]): Promise<void>;
  cancel(id: number): Promise<void>;
  fail(id: number): Promise<void>;
}

interface Claim {
  readonly delivery: ClaimedDelivery;
  state: ClaimState;
}

/**
 * The deliveries this instance holds the claims of, each through its whole life in one place
 * (graphile-worker's localQueue: named states, one checked way into each; svix's worker: each
 * step a typed value): `hold` → `start` → `sent` → `end`, or `end` from an earlier state as
 * ClaimEnd allows. Ending keeps every book a claim is in: its place in DELIVERY_CONCURRENCY
 * (scheduler.finished), its event's body (EventBodies), the claim itself, and the queue's row.
 * An end its state does not allow (a sent claim given back: sent twice) is a bug, thrown.
 */
export class HeldClaims {
  private readonly claims = new Map<number, Claim>();

  constructor(
    private readonly scheduler: DispatchScheduler<ClaimedDelivery>,
    private readonly bodies: EventBodies<unknown>,
    private readonly writes: ClaimWrites,
  ) {}

  /** Claims this instance now holds (claimed from the queue, or handed over by ingest), each holding its event's body. */
  hold(deliveries: readonly ClaimedDelivery[]): void {
    for (const delivery of deliveries) {
      this.claims.set(delivery.id, { delivery, state: 'held' });
      this.bodies.take(delivery.eventId, delivery.bodyBytes);
    }
  }

  /** The scheduler started these: each holds a place until it ends. */
  start(deliveries: readonly ClaimedDelivery[]): void {
    for (const { id } of deliveries) this.move(id, 'held', 'started');
  }

  /** Its attempt was made: from now on the claim cannot be given back. */
  sent(delivery: ClaimedDelivery): void {
    this.move(delivery.id, 'started', 'sent');
  }

  /** Whether its attempt went out (an error of ours then leaves it unrecorded, rather than giving it back). */
  wasSent(delivery: ClaimedDelivery): boolean {
    return this.claims.get(delivery.id)?.state === 'sent';
  }

  /** Ends one claim; resolves once the queue is written, for the ends that write at once (cancelled, failed). */
  async end(delivery: ClaimedDelivery, how: Exclude<ClaimEnd, 'given back'>): Promise<void> {
    const claim = this.endable(delivery.id, how);
    // Written first: should the write fail, the claim is as it was, and is given back.
    if (how === 'cancelled') await this.writes.cancel(delivery.id);
    if (how === 'failed') await this.writes.fail(delivery.id);
    this.letGo(claim);
    if (how === 'unrecorded') claim.state = 'left';
    else this.claims.delete(delivery.id);
  }

  /** Gives claims back, in one write: they are `left` until it is written (then no longer this instance's). */
  giveBack(deliveries: readonly ClaimedDelivery[]): Promise<void> {
    if (deliveries.length === 0) return Promise.resolve();
    const claims = deliveries.map(({ id }) => this.endable(id, 'given back'));
    for (const claim of claims) {
      this.letGo(claim);
      claim.state = 'left';
    }
    const ids = claims.map(({ delivery }) => delivery.id);
    return this.writes.giveBack(ids).then(() => {
      for (const id of ids) this.claims.delete(id);
    });
  }

  /** Shutdown, once no attempt is in flight: every claim still held or left is given back at once, rather than when its lease ends. */
  giveBackAll(): Promise<void> {
    const ending = [...this.claims.values()].filter(({ state }) => ENDS_FROM[state].includes('given back'));
    return this.giveBack(ending.map(({ delivery }) => delivery));
  }

  private move(id: number, from: ClaimState, to: ClaimState): void {
    const claim = this.claims.get(id);
    if (claim?.state !== from) throw new Error(`claim ${id} is ${claim?.state ?? 'not held'}, not ${from}: it cannot become ${to}`);
    claim.state = to;
  }

  private endable(id: number, how: ClaimEnd): Claim {
    const claim = this.claims.get(id);
    if (claim === undefined || !ENDS_FROM[claim.state].includes(how)) {
      throw new Error(`claim ${id} is ${claim?.state ?? 'not held'}: it cannot end ${how}`);
    }
    return claim;
  }

  /** Frees what the claim holds on this instance: its place (once started) and its body; a `left` claim holds neither. */
  private letGo({ delivery, state }: Claim): void {
    if (state === 'left') return;
    if (state !== 'held') this.scheduler.finished(delivery);
    this.bodies.drop(delivery.eventId);
  }
}
