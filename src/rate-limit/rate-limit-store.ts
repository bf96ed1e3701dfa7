import type { ThrottlerStorage } from '@nestjs/throttler';

/**
 * The counters behind every limit (memory or Redis): @nestjs/throttler's fixed-window
 * increment, and a look at a key's block without counting a hit, for the check that runs
 * before authentication (ClientLimits).
 */
export interface RateLimitStore extends ThrottlerStorage {
  /** Milliseconds left of the block on `key`; 0 when it is not blocked. */
  blockLeftMs(key: string): Promise<number>;
}
