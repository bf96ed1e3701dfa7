import { describe, expect, it } from 'vitest';
import { AdaptiveLimit, INITIAL_LIMIT } from './adaptive-limit';

/** `rounds` rounds of attempts that each use the whole limit and succeed in time. */
function afterRounds(limit: AdaptiveLimit, rounds: number): number {
  for (let round = 0; round < rounds; round++) {
    const inFlight = limit.current;
    for (let i = 0; i < inFlight; i++) limit.observe('in time', round * 1000, true, round * 1000 + 250);
  }
  return limit.current;
}

describe('AdaptiveLimit', () => {
  it('starts at a few attempts in flight', () => {
    expect(new AdaptiveLimit(64).current).toBe(INITIAL_LIMIT);
  });

  it('doubles every round while attempts fill it and succeed in time (slow start)', () => {
    expect(afterRounds(new AdaptiveLimit(64), 3)).toBe(INITIAL_LIMIT * 8);
  });

  it('never passes its maximum (DELIVERY_MAX_IN_FLIGHT_PER_WEBHOOK)', () => {
    expect(afterRounds(new AdaptiveLimit(20), 10)).toBe(20);
  });

  it('does not grow while the webhook leaves part of it unused', () => {
    const limit = new AdaptiveLimit(64);
    for (let i = 0; i < 100; i++) limit.observe('in time', i, false, i + 1);
    expect(limit.current).toBe(INITIAL_LIMIT);
  });

  it('halves on congestion, once for the attempts of one round', () => {
    const limit = new AdaptiveLimit(64);
    afterRounds(limit, 2);
    for (let i = 0; i < 8; i++) limit.observe('congestion', 5_000, true, 6_000 + i);
    expect(limit.current).toBe(8);
  });

  it('halves again for an attempt started after the last decrease', () => {
    const limit = new AdaptiveLimit(64);
    afterRounds(limit, 2);
    limit.observe('congestion', 5_000, true, 6_000);
    limit.observe('congestion', 6_500, true, 7_000);
    expect(limit.current).toBe(4);
  });

  it('grows by about one per round after congestion (additive increase)', () => {
    const limit = new AdaptiveLimit(64);
    afterRounds(limit, 3);
    limit.observe('congestion', 10_000, true, 10_000);
    expect(limit.current).toBe(16);
    for (let round = 0; round < 4; round++) {
      const inFlight = limit.current;
      for (let i = 0; i < inFlight; i++) limit.observe('in time', 20_000 + round, true, 20_000 + round);
    }
    expect(limit.current).toBe(19);
  });

  it('never falls below one attempt in flight', () => {
    const limit = new AdaptiveLimit(64);
    for (let i = 0; i < 10; i++) limit.observe('congestion', i * 10, true, i * 10 + 1);
    expect(limit.current).toBe(1);
  });

  it('is left as it is by a neutral outcome', () => {
    const limit = new AdaptiveLimit(64);
    limit.observe('neutral', 0, true, 1);
    expect(limit.current).toBe(INITIAL_LIMIT);
  });
});
