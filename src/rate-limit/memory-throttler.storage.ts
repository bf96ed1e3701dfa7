import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import type { RateLimitStore } from './rate-limit-store';

interface Window {
  hits: number;
  endsAt: number;
  blockedUntil: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Rate-limit counters in this process's memory (no REDIS_URL), with the fixed-window
 * semantics of RedisThrottlerStorage: O(1) per check. (@nestjs/throttler's own store keeps a
 * timestamp per hit and scans them all on every request, which grows with the traffic.)
 */
@Injectable()
export class MemoryThrottlerStorage implements RateLimitStore, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(Date.now()), SWEEP_EVERY_MS).unref();

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (window === undefined || window.endsAt <= now) {
      window = { hits: 0, endsAt: now + ttl, blockedUntil: window?.blockedUntil ?? 0 };
      this.windows.set(key, window);
    }
    window.hits += 1;
    if (window.blockedUntil <= now && window.hits > limit) window.blockedUntil = now + blockDuration;
    const blockLeft = window.blockedUntil - now;
    return {
      totalHits: window.hits,
      timeToExpire: Math.ceil((window.endsAt - now) / 1000),
      isBlocked: blockLeft > 0,
      timeToBlockExpire: Math.ceil(Math.max(blockLeft, 0) / 1000),
    };
  }

  async blockLeftMs(key: string): Promise<number> {
    return Math.max((this.windows.get(key)?.blockedUntil ?? 0) - Date.now(), 0);
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }

  private sweep(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now && window.blockedUntil <= now) this.windows.delete(key);
    }
  }
}
