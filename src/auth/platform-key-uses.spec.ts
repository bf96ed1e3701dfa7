import { describe, expect, it } from 'vitest';
import { LAST_USE_INTERVAL_MS, LastUseThrottle } from './platform-key-uses';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(ms);

describe('LastUseThrottle: which uses of a platform key are written as its last use', () => {
  it('writes the first use of a key never used (promptly, so a fresh key shows it)', () => {
    expect(new LastUseThrottle().shouldWrite(1, null, T0)).toBe(true);
  });

  it('writes a use when the stored last use is a minute old or more', () => {
    const sut = new LastUseThrottle();
    expect(sut.shouldWrite(1, at(T0 - LAST_USE_INTERVAL_MS), T0)).toBe(true);
    expect(new LastUseThrottle().shouldWrite(1, at(T0 - 10 * LAST_USE_INTERVAL_MS), T0)).toBe(true);
  });

  it('does not write while the stored last use is under a minute old (another instance wrote it)', () => {
    expect(new LastUseThrottle().shouldWrite(1, at(T0 - LAST_USE_INTERVAL_MS + 1), T0)).toBe(false);
  });

  it('does not write when the stored time is ahead of this clock (skew between instances)', () => {
    expect(new LastUseThrottle().shouldWrite(1, at(T0 + 5_000), T0)).toBe(false);
  });

  it('writes once for a burst of uses that all read the stale stored time before the write lands', () => {
    const sut = new LastUseThrottle();
    const decisions = Array.from({ length: 50 }, (_, i) => sut.shouldWrite(1, null, T0 + i * 10));
    expect(decisions.filter(Boolean)).toHaveLength(1);
    expect(decisions[0]).toBe(true);
  });

  it('writes again a minute after its own last write when the stored time is still stale (a write that failed)', () => {
    const sut = new LastUseThrottle();
    expect(sut.shouldWrite(1, null, T0)).toBe(true);
    expect(sut.shouldWrite(1, null, T0 + LAST_USE_INTERVAL_MS - 1)).toBe(false);
    expect(sut.shouldWrite(1, null, T0 + LAST_USE_INTERVAL_MS)).toBe(true);
  });

  it('throttles each key on its own', () => {
    const sut = new LastUseThrottle();
    expect([
      sut.shouldWrite(1, null, T0),
      sut.shouldWrite(2, null, T0),
      sut.shouldWrite(1, null, T0 + 1),
      sut.shouldWrite(2, null, T0 + 1),
    ]).toEqual([true, true, false, false]);
  });

  it('at most one write per key per minute under steady use (the stored time fresh after each write)', () => {
    const sut = new LastUseThrottle();
    let stored: Date | null = null;
    let writes = 0;
    // a use every 100 ms for 10 minutes; each write lands before the next use
    for (let now = T0; now < T0 + 10 * LAST_USE_INTERVAL_MS; now += 100) {
      if (sut.shouldWrite(1, stored, now)) {
        writes++;
        stored = at(now);
      }
    }
    expect(writes).toBe(10);
  });

  it('keeps throttling correctly after forgetting keys written long ago (the sweep)', () => {
    const sut = new LastUseThrottle();
    for (let id = 1; id <= 1_001; id++) sut.shouldWrite(id, null, T0);
    // key 1_002 at T0 + interval: every earlier entry is stale and swept, key 1_002 is kept
    expect(sut.shouldWrite(1_002, null, T0 + LAST_USE_INTERVAL_MS)).toBe(true);
    expect(sut.shouldWrite(1_002, null, T0 + LAST_USE_INTERVAL_MS + 1)).toBe(false);
    expect(sut.shouldWrite(1, null, T0 + LAST_USE_INTERVAL_MS + 1)).toBe(true);
  });
});
