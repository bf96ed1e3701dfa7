import { describe, expect, it, vi } from 'vitest';
import type { ClaimedDelivery } from './delivery-queue';
import { HeldClaims } from './held-claims';
import { DispatchScheduler } from './scheduling/dispatch-scheduler';
import { EventBodies } from './scheduling/event-bodies';

const NOW = 1_000_000;
const delivery = (id: number, eventId = `evt_${id}`): ClaimedDelivery => ({
  id,
  webhookId: 7,
  organizationId: 3,
  retry: false,
  leaseEndsAt: NOW + 60_000,
  dueAt: NOW,
  attempts: 0,
  retryFrom: 0,
  eventId,
  eventType: 'card.updated',
  bodyBytes: 100,
});

/** Claims over a real scheduler and real bodies, their queue writes recorded. */
function claimsWith(writes: Partial<{ giveBack: () => Promise<void>; cancel: () => Promise<void>; fail: () => Promise<void> }> = {}) {
  const scheduler = new DispatchScheduler<ClaimedDelivery>({
    concurrency: 8,
    maxInFlightPerWebhook: 4,
    minLeaseLeftMs: 0,
    sendingBudgetBytes: 1e6,
  });
  const bodies = new EventBodies(1e6);
  const queue = {
    giveBack: vi.fn(writes.giveBack ?? (async () => undefined)),
    cancel: vi.fn(writes.cancel ?? (async () => undefined)),
    fail: vi.fn(writes.fail ?? (async () => undefined)),
  };
  const claims = new HeldClaims(scheduler, bodies, queue);
  /** Holds and starts these as the dispatcher does: claimed, offered, started by the scheduler. */
  const started = (...deliveries: ClaimedDelivery[]) => {
    claims.hold(deliveries);
    scheduler.offer(deliveries, NOW);
    const { start } = scheduler.nextStarts(NOW);
    claims.start(start);
    return start;
  };
  return { claims, scheduler, bodies, queue, started };
}

describe('HeldClaims: every way a claim ends keeps every book', () => {
  it('recorded: its place and its body are free, and nothing more is written', async () => {
    const { claims, scheduler, bodies, queue, started } = claimsWith();
    const [d] = started(delivery(1));
    claims.sent(d);
    await claims.end(d, 'recorded');
    expect({ active: scheduler.active, bytes: bodies.bytes }).toEqual({ active: 0, bytes: 0 });
    expect(queue.giveBack).not.toHaveBeenCalled();
    await claims.giveBackAll();
    expect(queue.giveBack).not.toHaveBeenCalled();
  });

  it('given back: its place and body are free, and its id is written back once for all', async () => {
    const { claims, scheduler, bodies, queue, started } = claimsWith();
    const [a, b] = started(delivery(1), delivery(2));
    await claims.giveBack([a, b]);
    expect(queue.giveBack).toHaveBeenCalledWith([1, 2]);
    expect({ active: scheduler.active, bytes: bodies.bytes }).toEqual({ active: 0, bytes: 0 });
  });

  it('given back while only held: it never took a place', async () => {
    const { claims, scheduler, bodies } = claimsWith();
    claims.hold([delivery(1)]);
    await claims.giveBack([delivery(1)]);
    expect({ active: scheduler.active, bytes: bodies.bytes }).toEqual({ active: 0, bytes: 0 });
  });

  it.each([
    ['cancelled', 'cancel'],
    ['failed', 'fail'],
  ] as const)('%s: written first, then its place and body are free', async (how, write) => {
    const { claims, scheduler, queue, started } = claimsWith();
    const [d] = started(delivery(1));
    await claims.end(d, how);
    expect(queue[write]).toHaveBeenCalledWith(1);
    expect(scheduler.active).toBe(0);
  });

  it('cancelled, its write failing: the claim is as it was, and is given back after', async () => {
    const { claims, scheduler, queue, started } = claimsWith({ cancel: async () => Promise.reject(new Error('cut off')) });
    const [d] = started(delivery(1));
    await expect(claims.end(d, 'cancelled')).rejects.toThrow('cut off');
    expect(scheduler.active).toBe(1);
    await claims.giveBack([d]);
    expect([queue.giveBack.mock.calls, scheduler.active]).toEqual([[[[1]]], 0]);
  });

  it('unrecorded: its place and body are free, but shutdown gives it back', async () => {
    const { claims, scheduler, bodies, queue, started } = claimsWith();
    const [d] = started(delivery(1));
    claims.sent(d);
    await claims.end(d, 'unrecorded');
    expect({ active: scheduler.active, bytes: bodies.bytes }).toEqual({ active: 0, bytes: 0 });
    await claims.giveBackAll();
    expect(queue.giveBack).toHaveBeenCalledWith([1]);
  });

  it('a release that failed leaves the claims for shutdown to give back again', async () => {
    const { claims, queue, started } = claimsWith({ giveBack: async () => Promise.reject(new Error('cut off')) });
    const [d] = started(delivery(1));
    await expect(claims.giveBack([d])).rejects.toThrow('cut off');
    await claims.giveBackAll().catch(() => undefined);
    expect(queue.giveBack.mock.calls).toEqual([[[1]], [[1]]]);
  });

  it('holds one body for the deliveries of one event, and lets it go with the last', async () => {
    const { claims, bodies, started } = claimsWith();
    const [a, b] = started(delivery(1, 'evt_x'), delivery(2, 'evt_x'));
    expect(bodies.bytes).toBe(100);
    await claims.giveBack([a]);
    expect(bodies.bytes).toBe(100);
    await claims.giveBack([b]);
    expect(bodies.bytes).toBe(0);
  });
});

describe('HeldClaims: an end its state does not allow is a bug', () => {
  it('refuses to give back a claim whose attempt was made: it would be sent twice', () => {
    const { claims, started } = claimsWith();
    const [d] = started(delivery(1));
    claims.sent(d);
    expect(() => claims.giveBack([d])).toThrow('claim 1 is sent: it cannot end given back');
  });

  it('refuses to record a claim that was never sent', async () => {
    const { claims, started } = claimsWith();
    const [d] = started(delivery(1));
    await expect(claims.end(d, 'recorded')).rejects.toThrow('claim 1 is started: it cannot end recorded');
  });

  it('refuses to start a claim twice, or to end one twice', async () => {
    const { claims, started } = claimsWith();
    const [d] = started(delivery(1));
    expect(() => claims.start([d])).toThrow('claim 1 is started, not held');
    claims.sent(d);
    await claims.end(d, 'recorded');
    await expect(claims.end(d, 'recorded')).rejects.toThrow('claim 1 is not held');
  });
});
