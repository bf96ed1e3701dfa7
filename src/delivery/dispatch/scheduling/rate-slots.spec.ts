import { describe, expect, it } from 'vitest';
import { nextFreeSlot, rateSlots, slotGraceMs } from './rate-slots';

const times = (slots: ReturnType<typeof rateSlots>) => Array.from({ length: slots.count }, (_, i) => slots.start + i * slots.intervalMs);

describe('rateSlots', () => {
  it('spaces deliveries 1/rate seconds apart from now when the limiter is idle', () => {
    expect(times(rateSlots(null, 1000, 10, 3, 500))).toEqual([1000, 1100, 1200]);
  });

  it('gives only the slots within the horizon', () => {
    expect(rateSlots(null, 0, 2, 10, 600).count).toBe(2);
  });

  it('starts at the stored next free slot when it is ahead of now', () => {
    expect(times(rateSlots(1250, 1000, 4, 2, 1000))).toEqual([1250, 1500]);
  });

  it('gives nothing while the next free slot is beyond the horizon', () => {
    expect(rateSlots(5000, 1000, 1, 5, 200).count).toBe(0);
  });

  it('never lets a second window hold more than the rate, however the claims are split', () => {
    let next: number | null = null;
    const sent: number[] = [];
    for (let now = 0; now < 5000; now += 37) {
      const slots = rateSlots(next, now, 5, 3, 200);
      sent.push(...times(slots));
      next = slots.count > 0 ? nextFreeSlot(slots, slots.count) : next;
    }
    for (const t of sent) expect(sent.filter((s) => s >= t && s < t + 1000).length).toBeLessThanOrEqual(5);
    expect(sent.length).toBeGreaterThanOrEqual(24);
  });

  it('moves the next free slot past the slots actually used', () => {
    const slots = rateSlots(null, 0, 10, 5, 1000);
    expect(nextFreeSlot(slots, 2)).toBe(200);
  });
});

describe('slotGraceMs', () => {
  it.each([
    [1, 250],
    [4, 125],
    [10, 50],
    [20, 25],
    [1000, 25],
  ])('gives a rate of %i a second a grace of %i ms', (rate, grace) => {
    expect(slotGraceMs(1000 / rate)).toBe(grace);
  });
});
