import { describe, expect, it, vi } from 'vitest';
import { loadAppConfig } from '../../config/app-config';
import { Metrics } from '../../metrics/metrics';
import type { EventsRepository } from './events.repository';
import { PendingLimit } from './pending-limit';

/** A limit of `max`, whose counts find each organization asked for with the next of `pending`. */
function limitWith(max: number, pending: number[], webhooksMax = 100) {
  const countPending = vi.fn(async (organizations: readonly number[]) => new Map(organizations.map((id) => [id, pending.shift() ?? 0])));
  const config = loadAppConfig({
    DELIVERY_PENDING_PER_ORG_MAX: String(max),
    WEBHOOKS_PER_ORG_MAX: String(webhooksMax),
    SECRET_KEY: Buffer.alloc(32).toString('base64'),
  });
  const metrics = new Metrics();
  return { limit: new PendingLimit({ countPending } as unknown as EventsRepository, metrics, config), countPending, metrics };
}

describe('PendingLimit', () => {
  it('lets an organization below the limit through', async () => {
    await expect(limitWith(3, [2]).limit.check(1, 0)).resolves.toBeUndefined();
  });

  it('answers 429 queue full with Retry-After at the limit, and counts the refusal', async () => {
    const { limit, metrics } = limitWith(3, [3]);
    await expect(limit.check(1, 0)).rejects.toMatchObject({ status: 429, code: 'queue full', retryAfterSeconds: 30 });
    expect(await metrics.registry.getSingleMetricAsString('platform_api_events_queue_full_total')).toMatch(
      /^platform_api_events_queue_full_total 1$/m,
    );
  });

  it('trusts a count for a second, raised by what this instance added', async () => {
    const { limit, countPending } = limitWith(100, [10]);
    await limit.check(1, 0);
    limit.added(1, 5);
    await limit.check(1, 500);
    expect(countPending).toHaveBeenCalledTimes(1);
  });

  it('counts again after a second', async () => {
    const { limit, countPending } = limitWith(100, [10, 10]);
    await limit.check(1, 0);
    await limit.check(1, 1001);
    expect(countPending).toHaveBeenCalledTimes(2);
  });

  it('refuses only after a fresh count: deliveries that left pending meanwhile make room', async () => {
    const { limit, countPending } = limitWith(3, [2, 0]);
    await limit.check(1, 0);
    limit.added(1, 1);
    await expect(limit.check(1, 10)).resolves.toBeUndefined();
    expect(countPending).toHaveBeenCalledTimes(2);
  });

  it('trusts a count that found the organization full for its second: no count per refused request', async () => {
    const { limit, countPending } = limitWith(3, [3, 3]);
    for (const now of [0, 200, 900]) await expect(limit.check(1, now)).rejects.toMatchObject({ code: 'queue full' });
    expect(countPending).toHaveBeenCalledTimes(1);
    await expect(limit.check(1, 1001)).rejects.toMatchObject({ code: 'queue full' });
    expect(countPending).toHaveBeenCalledTimes(2);
  });

  it('counts what a request would add: the organizations a batch would take over the limit, counted in one statement', async () => {
    const { limit, countPending } = limitWith(10, [4, 9, 0]);
    expect(
      await limit.over(
        new Map([
          [1, 6],
          [2, 2],
          [3, 10],
        ]),
        0,
      ),
    ).toEqual([2]);
    expect(countPending).toHaveBeenCalledExactlyOnceWith([1, 2, 3]);
    expect(await limit.over(new Map([[1, 7]]), 10)).toEqual([1]);
    expect(countPending).toHaveBeenCalledOnce();
  });

  it("counts a batch's deliveries only for the organizations that the most they could be (a delivery per webhook) would take over", async () => {
    const { limit, countPending } = limitWith(1000, [100, 950, 990], 5);
    const deliveriesFor = vi.fn(async (organizations: readonly number[]) => new Map(organizations.map((id) => [id, 20])));
    expect(
      await limit.overWithBatch(
        new Map([
          [1, 100],
          [2, 20],
          [3, 4],
        ]),
        deliveriesFor,
        0,
      ),
    ).toEqual([3]);
    expect(countPending).toHaveBeenCalledOnce();
    expect(deliveriesFor).toHaveBeenCalledExactlyOnceWith([2, 3]);
    expect(await limit.overWithBatch(new Map([[1, 10]]), deliveriesFor, 10)).toEqual([]);
    expect(deliveriesFor).toHaveBeenCalledOnce();
  });

  it('refuses with the events a refusal concerns named, and counts it', async () => {
    const { limit, metrics } = limitWith(3, []);
    expect(limit.refusal('events[0].organization: full')).toMatchObject({
      status: 429,
      code: 'queue full',
      details: ['events[0].organization: full'],
      retryAfterSeconds: 30,
    });
    expect(await metrics.registry.getSingleMetricAsString('platform_api_events_queue_full_total')).toMatch(
      /^platform_api_events_queue_full_total 1$/m,
    );
  });

  it('keeps each organization’s count apart', async () => {
    const { limit } = limitWith(3, [3, 0]);
    await expect(limit.check(1, 0)).rejects.toMatchObject({ code: 'queue full' });
    await expect(limit.check(2, 0)).resolves.toBeUndefined();
  });

  it('checkRoom: lets through what takes the organization exactly to the limit, counting in the transaction given', async () => {
    const { limit, countPending } = limitWith(10, [4]);
    const tx = {} as never;
    await expect(limit.checkRoom(tx, 1, 6)).resolves.toBeUndefined();
    expect(countPending).toHaveBeenCalledWith([1], tx);
  });

  it('checkRoom: answers 429 queue full for what would take it one past the limit', async () => {
    const { limit } = limitWith(10, [4]);
    await expect(limit.checkRoom({} as never, 1, 7)).rejects.toMatchObject({ status: 429, code: 'queue full', retryAfterSeconds: 30 });
  });
});
