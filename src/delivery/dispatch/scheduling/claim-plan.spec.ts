import { describe, expect, it } from 'vitest';
import { type Candidate, lanesToRead, lockedBy, planClaim, type SharedState, slotsOf } from './claim-plan';
import type { ClaimAsk } from './dispatch-scheduler';

const NOW = 1_000_000;
const LEASE_ENDS_AT = NOW + 45_000;

interface Due extends Candidate {
  readonly id: number;
}
let nextId = 1;
const due = (webhookId: number, fields: Partial<Due> = {}): Due => ({ id: nextId++, webhookId, retry: false, dueAt: NOW - 100, ...fields });
const all = <T>(wanted: T[]) => wanted;

/** The plan for these asks, states and candidates; `choose` keeps everything unless given. */
function plan(asks: ClaimAsk[], candidates: Due[], states = new Map<number, SharedState>(), choose: (wanted: Due[]) => Due[] = all) {
  const slots = slotsOf(asks, states, NOW);
  return planClaim({ asks, states, slots, candidates, now: NOW, leaseEndsAt: LEASE_ENDS_AT, choose });
}

describe('the claim plan (docs/api.md 10.10)', () => {
  it('locks the shared state of the rate-limited and the probed webhooks only', () => {
    expect(
      lockedBy([
        { webhookId: 1, fresh: 1, retries: 0 },
        { webhookId: 2, fresh: 1, retries: 0, rateLimit: 5 },
        { webhookId: 3, fresh: 1, retries: 0, probe: true },
      ]),
    ).toEqual([2, 3]);
  });

  it('reads each lane asked for, within the rate slots of a rate-limited webhook', () => {
    const asks = [
      { webhookId: 1, fresh: 3, retries: 2 },
      { webhookId: 2, fresh: 10, retries: 0, rateLimit: 10 },
    ];
    expect(lanesToRead(asks, slotsOf(asks, new Map(), NOW))).toEqual([
      { webhookId: 1, lane: 'fresh', count: 3 },
      { webhookId: 1, lane: 'retry', count: 2 },
      // 10/s within the 200 ms horizon: slots at 0, 100 and 200 ms
      { webhookId: 2, lane: 'fresh', count: 3 },
    ]);
  });

  it('takes first attempts before retries, the oldest first', () => {
    const [retry, late, early] = [due(1, { retry: true, dueAt: NOW - 900 }), due(1, { dueAt: NOW - 10 }), due(1, { dueAt: NOW - 500 })];
    expect(plan([{ webhookId: 1, fresh: 2, retries: 1 }], [retry, late, early]).taken.map(({ id }) => id)).toEqual([
      early.id,
      late.id,
      retry.id,
    ]);
  });

  it("gives a rate-limited webhook's deliveries their slots, first attempts first, and moves its next free slot past them", () => {
    const asks = [{ webhookId: 2, fresh: 5, retries: 5, rateLimit: 10 }];
    const states = new Map([[2, { rateNextAt: NOW + 50, breakerOpenUntil: null }]]);
    const { taken, writes } = plan(asks, [due(2, { retry: true, dueAt: NOW - 999 }), due(2), due(2)], states);
    expect(taken.map(({ retry, notBefore, notAfter }) => ({ retry, notBefore, notAfter }))).toEqual([
      { retry: false, notBefore: NOW + 50, notAfter: NOW + 100 },
      { retry: false, notBefore: NOW + 150, notAfter: NOW + 200 },
    ]);
    expect(writes).toEqual([{ webhookId: 2, rateNextAt: NOW + 250 }]);
  });

  it('moves the next free slot past what `choose` kept only', () => {
    const asks = [{ webhookId: 2, fresh: 2, retries: 0, rateLimit: 10 }];
    const { taken, writes } = plan(asks, [due(2), due(2)], new Map(), (wanted) => wanted.slice(0, 1));
    expect(taken).toHaveLength(1);
    expect(writes).toEqual([{ webhookId: 2, rateNextAt: NOW + 100 }]);
  });

  it('probes a breaker whose cool-down is over, holding it open until the claim lease ends', () => {
    const states = new Map([[3, { rateNextAt: null, breakerOpenUntil: NOW - 1 }]]);
    const { taken, writes } = plan([{ webhookId: 3, fresh: 1, retries: 0, probe: true }], [due(3)], states);
    expect(taken).toEqual([expect.objectContaining({ webhookId: 3, probe: true })]);
    expect(writes).toEqual([{ webhookId: 3, breakerOpenUntil: LEASE_ENDS_AT }]);
  });

  it("takes nothing of a webhook whose probe another instance's claim holds, and writes nothing for it", () => {
    const states = new Map([[3, { rateNextAt: null, breakerOpenUntil: NOW + 30_000 }]]);
    expect(plan([{ webhookId: 3, fresh: 1, retries: 0, probe: true }], [due(3)], states)).toEqual({ taken: [], writes: [] });
  });

  it('holds no breaker open for a probe `choose` did not keep', () => {
    const states = new Map([[3, { rateNextAt: null, breakerOpenUntil: NOW - 1 }]]);
    expect(plan([{ webhookId: 3, fresh: 1, retries: 0, probe: true }], [due(3)], states, () => [])).toEqual({ taken: [], writes: [] });
  });

  it('reads the head of an ordered webhook and its due test pings, and locks its shared state', () => {
    const asks = [{ webhookId: 4, fresh: 1, retries: 0, ordered: true }];
    expect(lockedBy(asks)).toEqual([4]);
    expect(lanesToRead(asks, new Map())).toEqual([
      { webhookId: 4, lane: 'head', count: 1 },
      { webhookId: 4, lane: 'pings', count: 1 },
    ]);
  });

  it('takes one delivery of an ordered webhook, the older of its head and a test ping', () => {
    const [head, ping] = [due(4, { dueAt: NOW - 500 }), due(4, { dueAt: NOW - 50 })];
    expect(plan([{ webhookId: 4, fresh: 1, retries: 0, ordered: true }], [ping, head]).taken.map(({ id }) => id)).toEqual([head.id]);
  });
});
