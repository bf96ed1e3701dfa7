import { describe, expect, it } from 'vitest';
import { INITIAL_LIMIT } from './adaptive-limit';
import { DispatchScheduler, DueWebhook, SchedulerConfig, Work } from './dispatch-scheduler';

const NOW = 1_000_000;
const LEASE = NOW + 60_000;
let nextId = 1;
const work = (webhookId: number, organizationId: number, fields: Partial<Work> = {}): Work => ({
  id: nextId++,
  webhookId,
  organizationId,
  retry: false,
  leaseEndsAt: LEASE,
  bodyBytes: 100,
  ...fields,
});
const many = (n: number, webhookId: number, organizationId: number, fields: Partial<Work> = {}) =>
  Array.from({ length: n }, () => work(webhookId, organizationId, fields));
const due = (webhookId: number, organizationId: number, fields: Partial<DueWebhook> = {}): DueWebhook => ({
  webhookId,
  organizationId,
  freshDueAt: NOW - 1000,
  retryDueAt: null,
  rateLimit: null,
  rateNextAt: null,
  breakerOpenUntil: null,
  ordered: false,
  ...fields,
});
const scheduler = (config: Partial<SchedulerConfig> = {}) =>
  new DispatchScheduler<Work>({
    concurrency: 256,
    maxInFlightPerWebhook: 64,
    minLeaseLeftMs: 20_000,
    sendingBudgetBytes: 1_000_000,
    ...config,
  });
const ok = { limit: 'in time' as const, unanswered: false, durationMs: 10 };
const countBy = (works: readonly Work[], key: (work: Work) => number) =>
  works.reduce<Record<number, number>>((counts, w) => ({ ...counts, [key(w)]: (counts[key(w)] ?? 0) + 1 }), {});

describe('DispatchScheduler: starting what it holds', () => {
  it('starts no more than a webhook limit of its deliveries; the others wait', () => {
    const sut = scheduler();
    sut.offer(many(6, 1, 1), NOW);
    expect(sut.nextStarts(NOW).start).toHaveLength(INITIAL_LIMIT);
    expect(sut.waiting).toBe(2);
  });

  it('starts a waiting delivery once an attempt to its webhook is answered', () => {
    const sut = scheduler();
    sut.offer(many(5, 1, 1), NOW);
    const [first] = sut.nextStarts(NOW).start;
    sut.answered(first, ok, NOW + 10);
    expect(sut.nextStarts(NOW + 10).start).toHaveLength(1);
  });

  it('raises a webhook limit while its attempts fill it and succeed in time', () => {
    const sut = scheduler();
    sut.offer(many(64, 1, 1), NOW);
    for (const started of sut.nextStarts(NOW).start) {
      sut.answered(started, ok, NOW + 10);
      sut.finished(started);
    }
    expect(sut.limitOf(1)).toBe(2 * INITIAL_LIMIT);
  });

  it('keeps the slot of an attempt nobody answered until its outcome is written', () => {
    const sut = scheduler({ maxInFlightPerWebhook: 1 });
    sut.offer(many(2, 1, 1), NOW);
    const [first] = sut.nextStarts(NOW).start;
    sut.answered(first, { limit: 'congestion', unanswered: true, durationMs: 1500 }, NOW + 1500);
    expect(sut.nextStarts(NOW + 1500).start).toHaveLength(0);
    sut.finished(first);
    expect(sut.nextStarts(NOW + 1600).start).toHaveLength(1);
  });

  it('lets organizations take turns: one with many webhooks and a backlog does not go before one with a single delivery', () => {
    const sut = scheduler({ concurrency: 4 });
    for (let webhook = 1; webhook <= 10; webhook++) sut.offer(many(10, webhook, 1), NOW);
    sut.offer([work(99, 2)], NOW);
    const { start } = sut.nextStarts(NOW);
    expect(start.slice(0, 2).map((w) => w.organizationId)).toContain(2);
  });

  it('keeps the last eighth of DELIVERY_CONCURRENCY for organizations with fewer attempts than that in flight', () => {
    const sut = scheduler({ concurrency: 16 });
    for (let webhook = 1; webhook <= 8; webhook++) sut.offer(many(4, webhook, 1), NOW);
    expect(sut.nextStarts(NOW).start).toHaveLength(14);
    sut.offer([work(99, 2)], NOW);
    expect(sut.nextStarts(NOW).start.map((w) => w.organizationId)).toEqual([2]);
  });

  it('lets organizations with a few attempts each fill the whole concurrency', () => {
    const sut = scheduler({ concurrency: 16 });
    for (let organization = 1; organization <= 16; organization++) sut.offer([work(organization, organization)], NOW);
    expect(sut.nextStarts(NOW).start).toHaveLength(16);
  });

  it('keeps the last quarter of DELIVERY_CONCURRENCY for first attempts: retries wait', () => {
    const sut = scheduler({ concurrency: 8 });
    for (let webhook = 1; webhook <= 4; webhook++) sut.offer(many(4, webhook, webhook, { retry: true }), NOW);
    expect(sut.nextStarts(NOW).start).toHaveLength(6);
    sut.offer([work(9, 9)], NOW);
    expect(sut.nextStarts(NOW).start.map((w) => w.retry)).toEqual([false]);
  });

  it('starts a webhook first attempts before its retries', () => {
    const sut = scheduler();
    sut.offer(many(4, 1, 1, { retry: true }), NOW);
    sut.offer(many(2, 1, 1), NOW);
    expect(sut.nextStarts(NOW).start.map((w) => w.retry)).toEqual([false, false, true, true]);
  });

  it('gives back what an open breaker holds back, but starts its probe', () => {
    const sut = scheduler();
    sut.offer(many(3, 1, 1), NOW);
    sut.noteBreaker(1, NOW + 30_000);
    expect(sut.nextStarts(NOW)).toMatchObject({ start: [], back: expect.arrayContaining([expect.objectContaining({ webhookId: 1 })]) });
    sut.noteBreaker(1, NOW - 1);
    sut.offer([work(1, 1, { probe: true })], NOW);
    expect(sut.nextStarts(NOW).start.map((w) => w.probe)).toEqual([true]);
  });

  it('gives back a delivery whose lease is too near its end to start it', () => {
    const sut = scheduler();
    sut.offer([work(1, 1, { leaseEndsAt: NOW + 5_000 })], NOW);
    expect(sut.nextStarts(NOW)).toMatchObject({ start: [], back: [expect.objectContaining({ webhookId: 1 })] });
  });

  it('keeps the bodies on the wire within the buffer: large events wait for answers, one larger than it goes alone', () => {
    const sut = scheduler({ sendingBudgetBytes: 1000 });
    for (let webhook = 1; webhook <= 6; webhook++) sut.offer([work(webhook, webhook, { bodyBytes: 400 })], NOW);
    const { start } = sut.nextStarts(NOW);
    expect(start).toHaveLength(2);
    sut.answered(start[0], ok, NOW + 10);
    expect(sut.nextStarts(NOW + 10).start).toHaveLength(1);
    const alone = scheduler({ sendingBudgetBytes: 1000 });
    alone.offer([work(9, 9, { bodyBytes: 5000 })], NOW);
    expect(alone.nextStarts(NOW).start).toHaveLength(1);
  });

  it('never starts more than DELIVERY_CONCURRENCY at once', () => {
    const sut = scheduler({ concurrency: 10 });
    for (let organization = 1; organization <= 20; organization++) sut.offer(many(2, organization, organization), NOW);
    expect(sut.nextStarts(NOW).start).toHaveLength(10);
    expect(sut.active).toBe(10);
  });
});

describe('DispatchScheduler: holding', () => {
  it('gives back deliveries past a webhook depth', () => {
    const sut = scheduler();
    expect(sut.offer(many(20, 1, 1), NOW)).toHaveLength(20 - 2 * INITIAL_LIMIT);
  });

  it('takes a first attempt though the webhook holds retries up to its depth', () => {
    const sut = scheduler();
    sut.offer(many(2 * INITIAL_LIMIT, 1, 1, { retry: true }), NOW);
    expect(sut.offer([work(1, 1)], NOW)).toEqual([]);
  });

  it('holds nothing for a webhook whose breaker is open', () => {
    const sut = scheduler();
    sut.setDue([due(1, 1, { breakerOpenUntil: NOW + 10_000 })], NOW);
    expect(sut.offer([work(1, 1)], NOW)).toHaveLength(1);
  });

  it('takes no hand-offs once its places are all promised', () => {
    const sut = scheduler({ concurrency: 4 });
    for (let webhook = 1; webhook <= 2; webhook++) sut.offer(many(2, webhook, webhook), NOW);
    expect(sut.handoffs(NOW).open).toBe(false);
  });

  it("takes a light organization's hand-offs once only the reserve is free, leaving the heavy organizations' in the queue", () => {
    const sut = scheduler({ concurrency: 8 });
    for (let webhook = 1; webhook <= 4; webhook++) sut.offer(many(2, webhook, webhook), NOW);
    expect(sut.handoffs(NOW)).toEqual({ open: true, exclude: [1, 2, 3, 4] });
  });
});

/**
 * A name server that stopped answering, at a small DELIVERY_CONCURRENCY (issue 31: 8): one
 * organization's 20 webhooks hold every place they may with attempts waiting for the resolver,
 * and have more claimed and waiting.
 */
function stalledBeside(concurrency: number) {
  const sut = scheduler({ concurrency });
  for (let webhook = 1; webhook <= 20; webhook++) sut.offer(many(INITIAL_LIMIT, webhook, 1), NOW);
  const stalled = sut.nextStarts(NOW).start;
  return { sut, stalled };
}

describe('DispatchScheduler: isolation at any DELIVERY_CONCURRENCY', () => {
  it.each([8, 16, 256])('at %i, claims the delivery of a light organization beside a stalled one', (concurrency) => {
    const { sut, stalled } = stalledBeside(concurrency);
    expect(stalled.length).toBe(Math.min(concurrency - Math.floor(concurrency / 8), 20 * INITIAL_LIMIT));
    sut.setDue([due(99, 2)], NOW);
    expect(sut.claimPlan(NOW)).toEqual([expect.objectContaining({ webhookId: 99, fresh: expect.any(Number) })]);
    expect(sut.claimPlan(NOW)[0].fresh).toBeGreaterThanOrEqual(1);
  });

  it("at 8, hands over a light organization's event beside a stalled one, and none of the stalled one's", () => {
    const { sut } = stalledBeside(8);
    const { open, exclude } = sut.handoffs(NOW);
    expect(open).toBe(true);
    expect(exclude).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("at 8, starts the light organization's delivery at once, and nothing more of the stalled one's", () => {
    const { sut } = stalledBeside(8);
    sut.offer([work(99, 2)], NOW);
    expect(sut.nextStarts(NOW).start.map((w) => w.webhookId)).toEqual([99]);
  });

  it('at 8, asks nothing more for the stalled organization while only the reserve is free', () => {
    const { sut } = stalledBeside(8);
    sut.setDue([due(21, 1)], NOW);
    expect(sut.claimPlan(NOW)).toEqual([]);
  });
});

describe('DispatchScheduler: claims', () => {
  it('asks each due webhook for its room, organizations by turns', () => {
    const sut = scheduler({ concurrency: 4 });
    sut.setDue([due(1, 1), due(2, 1), due(3, 2)], NOW);
    expect(
      countBy(
        sut.claimPlan(NOW).flatMap((ask) => Array(ask.fresh).fill(ask)),
        (ask) => ask.webhookId,
      ),
    ).toEqual({ 1: 1, 2: 1, 3: 2 });
  });

  it('asks a webhook for no more than its depth', () => {
    const sut = scheduler();
    sut.setDue([due(1, 1)], NOW);
    expect(sut.claimPlan(NOW)).toEqual([expect.objectContaining({ webhookId: 1, fresh: 2 * INITIAL_LIMIT, retries: 0 })]);
  });

  it('asks nothing of a webhook whose breaker is open, and one delivery to probe it once the cool-down is over', () => {
    const sut = scheduler();
    sut.setDue([due(1, 1, { breakerOpenUntil: NOW + 1 })], NOW);
    expect(sut.claimPlan(NOW)).toEqual([]);
    expect(sut.claimPlan(NOW + 1)).toEqual([expect.objectContaining({ webhookId: 1, fresh: 1, retries: 0, probe: true })]);
  });

  it('asks nothing of a rate-limited webhook whose next slot is beyond the horizon', () => {
    const sut = scheduler();
    sut.setDue([due(1, 1, { rateLimit: 1, rateNextAt: NOW + 900 })], NOW);
    expect(sut.claimPlan(NOW)).toEqual([]);
  });

  it('asks for retries only while more than the places kept for first attempts are free', () => {
    const sut = scheduler({ concurrency: 8 });
    sut.setDue(
      [1, 2, 3, 4].map((id) => due(id, id, { freshDueAt: null, retryDueAt: NOW - 1 })),
      NOW,
    );
    expect(sut.claimPlan(NOW).reduce((sum, ask) => sum + ask.retries, 0)).toBe(6);
  });

  it('forgets a drained lane until the next scan', () => {
    const sut = scheduler();
    sut.setDue([due(1, 1, { retryDueAt: NOW - 1 })], NOW);
    const asks = sut.claimPlan(NOW);
    sut.afterClaim(asks, [work(1, 1)], NOW);
    expect(sut.claimPlan(NOW)).toEqual([expect.objectContaining({ fresh: 0 })]);
  });

  it("keeps asking for others while one webhook's list waits beyond its limit", () => {
    const sut = scheduler({ concurrency: 4, maxInFlightPerWebhook: 2 });
    sut.offer(many(4, 1, 1), NOW);
    sut.nextStarts(NOW);
    sut.setDue([due(2, 2)], NOW);
    expect(sut.claimPlan(NOW)).toEqual([expect.objectContaining({ webhookId: 2, fresh: 2 })]);
  });

  it('asks nothing once every place is taken or promised', () => {
    const sut = scheduler({ concurrency: 2 });
    sut.offer(many(2, 1, 1), NOW);
    sut.setDue([due(2, 2)], NOW);
    expect(sut.claimPlan(NOW)).toEqual([]);
  });
});

describe('DispatchScheduler: an ordered webhook (docs/api.md 10.18)', () => {
  const ordered = (webhookId: number, organizationId: number, fields: Partial<DueWebhook> = {}) =>
    due(webhookId, organizationId, { ordered: true, ...fields });

  it('asks for one delivery, its head, and only while it holds none', () => {
    const sut = scheduler();
    sut.setDue([ordered(1, 1, { retryDueAt: NOW - 10 })], NOW);
    const asks = sut.claimPlan(NOW);
    expect(asks).toEqual([expect.objectContaining({ webhookId: 1, fresh: 1, retries: 0, ordered: true })]);
    sut.afterClaim(asks, [work(1, 1)], NOW);
    sut.offer([work(1, 1)], NOW);
    sut.setDue([ordered(1, 1)], NOW);
    expect(sut.claimPlan(NOW)).toEqual([]);
  });

  it('starts one attempt at a time, however high its limit', () => {
    const sut = scheduler();
    sut.setDue([ordered(1, 1)], NOW);
    expect(sut.offer(many(3, 1, 1), NOW)).toHaveLength(2);
    expect(sut.nextStarts(NOW).start).toHaveLength(1);
  });

  it('asks for its next head only once its attempt is recorded, not as soon as the receiver answered', () => {
    const sut = scheduler();
    sut.setDue([ordered(1, 1)], NOW);
    sut.offer([work(1, 1)], NOW);
    const [head] = sut.nextStarts(NOW).start;
    sut.answered(head, ok, NOW + 10);
    expect(sut.claimPlan(NOW + 10)).toEqual([]);
    sut.finished(head);
    expect(sut.claimPlan(NOW + 20)).toEqual([expect.objectContaining({ webhookId: 1, fresh: 1, ordered: true })]);
  });

  it('is never handed deliveries by ingest: they wait for their turn in the queue', () => {
    const sut = scheduler();
    sut.setDue([ordered(1, 1), due(2, 1)], NOW);
    expect(sut.handoffs(NOW).exclude).toEqual([1]);
  });

  it('holds no place for others while its head waits: another webhook of its organization is asked for its room', () => {
    const sut = scheduler({ concurrency: 4 });
    sut.setDue([ordered(1, 1), due(2, 1)], NOW);
    sut.offer([work(1, 1)], NOW);
    sut.nextStarts(NOW);
    expect(sut.claimPlan(NOW)).toEqual([expect.objectContaining({ webhookId: 2, fresh: 3 })]);
  });
});
