import { type ClaimAsk, RATE_HORIZON_MS } from './dispatch-scheduler';
import { nextFreeSlot, rateSlots, type RateSlots, slotGraceMs } from './rate-slots';

/**
 * The claim's rules (docs/api.md 10.10), as plain functions over what its transaction read and
 * locked: the I/O shell (DeliveryQueue.claim) reads and locks, asks these what to take, and
 * writes what they say.
 */

/** What a claim reads of a webhook's shared state, under the row's lock: its rate limiter's next free slot, and its breaker. */
export interface SharedState {
  readonly rateNextAt: number | null;
  readonly breakerOpenUntil: number | null;
}

/** A due delivery the claim's locking read found. */
export interface Candidate {
  readonly webhookId: number;
  /** A retry (the backlog's lane), or a first attempt. */
  readonly retry: boolean;
  readonly dueAt: number;
}

/**
 * How many of a webhook's due deliveries to read, and which: of one lane (first attempts,
 * retries), or, for an ordered webhook (docs/api.md 10.18), the head of its order and its due
 * test pings, which the order does not hold.
 */
export interface LaneRead {
  readonly webhookId: number;
  readonly lane: 'fresh' | 'retry' | 'head' | 'pings';
  readonly count: number;
}

/** A taken delivery: when a rate-limited one may be sent (its slot, and the slot's grace), and whether it probes its breaker. */
export type Taken<C> = C & { readonly notBefore?: number; readonly notAfter?: number; readonly probe?: boolean };

/** What the claim writes besides its deliveries: a rate limiter's next free slot, a breaker held open by its probe's lease. */
export interface SharedWrite {
  readonly webhookId: number;
  readonly rateNextAt?: number;
  readonly breakerOpenUntil?: number;
}

/**
 * The webhooks whose shared state the claim must lock: the rate-limited ones, those it would
 * probe, and the ordered ones (so that the instances claiming for one take its head in turns).
 */
export const lockedBy = (asks: readonly ClaimAsk[]): number[] =>
  asks
    .filter(({ rateLimit, probe, ordered }) => rateLimit !== undefined || probe === true || ordered === true)
    .map(({ webhookId }) => webhookId);

/** The rate slots each rate-limited ask may use now: its limiter's slots within RATE_HORIZON_MS. */
export function slotsOf(asks: readonly ClaimAsk[], states: ReadonlyMap<number, SharedState>, now: number): Map<number, RateSlots> {
  const slots = new Map<number, RateSlots>();
  for (const { webhookId, rateLimit, fresh, retries } of asks) {
    if (rateLimit === undefined) continue;
    slots.set(webhookId, rateSlots(states.get(webhookId)?.rateNextAt ?? null, now, rateLimit, fresh + retries, RATE_HORIZON_MS));
  }
  return slots;
}

/** Each ask's lanes to read, within its rate slots. */
export function lanesToRead(asks: readonly ClaimAsk[], slots: ReadonlyMap<number, RateSlots>): LaneRead[] {
  return asks.flatMap(({ webhookId, fresh, retries, ordered }) => {
    const allowed = slots.get(webhookId)?.count ?? fresh + retries;
    if (ordered === true) {
      return allowed > 0
        ? [
            { webhookId, lane: 'head' as const, count: 1 },
            { webhookId, lane: 'pings' as const, count: 1 },
          ]
        : [];
    }
    const lanes: LaneRead[] = [
      { webhookId, lane: 'fresh', count: Math.min(fresh, allowed) },
      { webhookId, lane: 'retry', count: Math.min(retries, allowed) },
    ];
    return lanes.filter(({ count }) => count > 0);
  });
}

/**
 * What to take of the candidates, oldest first with first attempts before retries:
 * - a rate-limited webhook's deliveries up to its slots, first attempts first, each with its send
 *   time and its grace; its limiter's next free slot moves past those taken;
 * - a probe is made only while the breaker's cool-down is over and no other instance's claim took
 *   the probe (which holds the breaker open until its lease ends): else nothing of that webhook
 *   is taken; a probe taken holds the breaker open until this claim's lease ends;
 * - an ordered webhook gets one: the head of its order or a test ping, whichever is older;
 * - `choose` keeps what fits (the memory budget for bodies), and only what it keeps is taken.
 */
export function planClaim<C extends Candidate>(given: {
  readonly asks: readonly ClaimAsk[];
  readonly states: ReadonlyMap<number, SharedState>;
  readonly slots: ReadonlyMap<number, RateSlots>;
  readonly candidates: readonly C[];
  readonly now: number;
  readonly leaseEndsAt: number;
  readonly choose: (wanted: Taken<C>[]) => Taken<C>[];
}): { taken: Taken<C>[]; writes: SharedWrite[] } {
  const { asks, states, slots, now, leaseEndsAt } = given;
  const probing = new Set(asks.filter(({ probe }) => probe === true).map(({ webhookId }) => webhookId));
  const left = new Map([...slots].map(([webhookId, limiter]) => [webhookId, limiter.count]));
  for (const { webhookId, ordered } of asks) if (ordered === true) left.set(webhookId, Math.min(1, left.get(webhookId) ?? 1));
  const wanted = [...given.candidates]
    .sort((a, b) => Number(a.retry) - Number(b.retry) || a.dueAt - b.dueAt)
    .filter(({ webhookId }) => {
      const slotsLeft = left.get(webhookId);
      if (slotsLeft === undefined) return true;
      left.set(webhookId, slotsLeft - 1);
      return slotsLeft > 0;
    })
    .filter(({ webhookId }) => !probing.has(webhookId) || probeIsFree(states.get(webhookId), now))
    .map((candidate): Taken<C> => (probing.has(candidate.webhookId) ? { ...candidate, probe: true } : candidate));
  const chosen = given.choose(wanted);
  const taken: Taken<C>[] = [];
  const writes: SharedWrite[] = [];
  for (const webhookId of new Set(chosen.map((delivery) => delivery.webhookId))) {
    const mine = chosen.filter((delivery) => delivery.webhookId === webhookId);
    const limiter = slots.get(webhookId);
    if (limiter === undefined) taken.push(...mine);
    else {
      taken.push(
        ...mine.map((delivery, i) => {
          const slot = limiter.start + i * limiter.intervalMs;
          return { ...delivery, notBefore: slot, notAfter: slot + slotGraceMs(limiter.intervalMs) };
        }),
      );
    }
    const write = {
      webhookId,
      ...(limiter !== undefined && { rateNextAt: nextFreeSlot(limiter, mine.length) }),
      ...(probing.has(webhookId) && { breakerOpenUntil: leaseEndsAt }),
    };
    if (write.rateNextAt !== undefined || write.breakerOpenUntil !== undefined) writes.push(write);
  }
  return { taken, writes };
}

/** The breaker's cool-down is over and no claim holds its probe (one that does moved its end to its lease's). */
const probeIsFree = (state: SharedState | undefined, now: number): boolean =>
  state?.breakerOpenUntil !== null && state?.breakerOpenUntil !== undefined && state.breakerOpenUntil <= now;
