import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorageRecord } from '@nestjs/throttler/dist/throttler-storage-record.interface';
import Redis from 'ioredis';
import type { Logger } from 'pino';
import { PINO } from '../logging/pino.provider';
import type { RateLimitStore } from './rate-limit-store';

/**
 * One round trip per check: count the hit in a fixed window and, past the limit, start (or
 * keep) a block. Answers {hits, window ms left, block ms left (<= 0: none)}.
 */
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local windowLeft = redis.call('PTTL', KEYS[1])
local blockLeft = redis.call('PTTL', KEYS[2])
if blockLeft <= 0 and hits > tonumber(ARGV[2]) then
  redis.call('SET', KEYS[2], '1', 'PX', ARGV[3])
  blockLeft = tonumber(ARGV[3])
end
return { hits, windowLeft, blockLeft }`;

const WARN_EVERY_MS = 10_000;

/**
 * Rate-limit counters in Redis, so that a limit holds across every instance. When Redis
 * cannot answer, requests are let through (fail open) with a warning: an outage of the
 * limiter must not become an outage of the API.
 */
@Injectable()
export class RedisThrottlerStorage implements RateLimitStore, OnApplicationShutdown {
  private lastWarning = 0;

  constructor(
    private readonly redis: Redis,
    @Inject(PINO) private readonly logger: Logger,
  ) {}

  static connect(url: string, logger: Logger): RedisThrottlerStorage {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 1000, lazyConnect: false });
    redis.on('error', () => undefined); // reported per failed check below
    return new RedisThrottlerStorage(redis, logger);
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<ThrottlerStorageRecord> {
    try {
      const [hits, windowLeft, blockLeft] = (await this.redis.eval(
        INCREMENT,
        2,
        key,
        `${key}:blocked`,
        ttl,
        limit,
        blockDuration,
      )) as number[];
      return {
        totalHits: hits,
        timeToExpire: Math.ceil(Math.max(windowLeft, 0) / 1000),
        isBlocked: blockLeft > 0,
        timeToBlockExpire: Math.ceil(Math.max(blockLeft, 0) / 1000),
      };
    } catch (error) {
      this.warn(error);
      return { totalHits: 0, timeToExpire: 0, isBlocked: false, timeToBlockExpire: 0 };
    }
  }

  async blockLeftMs(key: string): Promise<number> {
    try {
      return Math.max(await this.redis.pttl(`${key}:blocked`), 0);
    } catch (error) {
      this.warn(error);
      return 0;
    }
  }

  private warn(error: unknown): void {
    if (Date.now() - this.lastWarning > WARN_EVERY_MS) {
      this.lastWarning = Date.now();
      this.logger.warn({ err: { message: (error as Error).message } }, 'rate limiter unavailable: requests are not being limited');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.redis.disconnect();
  }
}
