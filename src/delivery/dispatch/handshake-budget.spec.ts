import { describe, expect, it } from 'vitest';
import { HANDSHAKE_BURST_MS, HandshakeBudget } from './handshake-budget';

/* docs/api.md 10.10: the CPU a receiver's TLS handshakes may cost, per second. */

describe('HandshakeBudget', () => {
  const setUp = () => {
    let now = 1_000;
    return { budget: new HandshakeBudget(() => now), advance: (ms: number) => (now += ms) };
  };

  it('lets connections go at once while the burst lasts', () => {
    const { budget } = setUp();
    budget.charge(HANDSHAKE_BURST_MS);
    expect(budget.waitMs()).toBe(0);
  });

  it('makes the next connection wait for what the receiver owes, at 50 ms of CPU a second', () => {
    const { budget } = setUp();
    budget.charge(HANDSHAKE_BURST_MS + 5);
    expect(budget.waitMs()).toBe(100);
  });

  it('refills as time passes, and no further than the burst', () => {
    const { budget, advance } = setUp();
    budget.charge(HANDSHAKE_BURST_MS + 5);
    advance(100);
    expect(budget.waitMs()).toBe(0);
    advance(60_000);
    budget.charge(HANDSHAKE_BURST_MS + 1);
    expect(budget.waitMs()).toBe(20);
  });
});
