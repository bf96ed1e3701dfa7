import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryThrottlerStorage } from './memory-throttler.storage';

const WINDOW_MS = 60_000;
const BLOCK_MS = 60_000;
const LIMIT = 2;

describe('MemoryThrottlerStorage (fixed windows, as RedisThrottlerStorage counts)', () => {
  let storage: MemoryThrottlerStorage;

  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
    storage = new MemoryThrottlerStorage();
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    vi.useRealTimers();
  });

  const hit = (key = 'k') => storage.increment(key, WINDOW_MS, LIMIT, BLOCK_MS);

  it('counts the hits of a window and says when it ends', async () => {
    await hit();
    vi.advanceTimersByTime(10_500);
    expect(await hit()).toEqual({ totalHits: 2, timeToExpire: 50, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('blocks the hit past the limit for the block duration', async () => {
    for (let i = 0; i < LIMIT; i++) await hit();
    expect(await hit()).toMatchObject({ totalHits: LIMIT + 1, isBlocked: true, timeToBlockExpire: 60 });
    expect(await storage.blockLeftMs('k')).toBe(BLOCK_MS);
  });

  it('starts a new window, from zero, once the last one has ended', async () => {
    for (let i = 0; i < LIMIT; i++) await hit();
    vi.advanceTimersByTime(WINDOW_MS);
    expect(await hit()).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('keeps a block that outlasts its window into the next one', async () => {
    const storage = new MemoryThrottlerStorage();
    for (let i = 0; i <= LIMIT; i++) await storage.increment('k', 1000, LIMIT, 5000);
    vi.advanceTimersByTime(2000);
    expect(await storage.increment('k', 1000, LIMIT, 5000)).toMatchObject({ totalHits: 1, isBlocked: true, timeToBlockExpire: 3 });
    storage.onApplicationShutdown();
  });

  it('counts each key on its own', async () => {
    for (let i = 0; i <= LIMIT; i++) await hit('a');
    expect(await hit('b')).toMatchObject({ totalHits: 1, isBlocked: false });
    expect(await storage.blockLeftMs('b')).toBe(0);
  });

  it('forgets windows that ended and blocks that ran out on its sweep, so that memory does not grow with the keys seen', async () => {
    for (let i = 0; i <= LIMIT; i++) await hit('blocked');
    await hit('done');
    vi.advanceTimersByTime(WINDOW_MS / 2);
    await hit('live');
    vi.advanceTimersByTime(WINDOW_MS / 2);
    const windows = (storage as unknown as { windows: Map<string, unknown> }).windows;
    expect([...windows.keys()]).toEqual(['live']);
  });
});
