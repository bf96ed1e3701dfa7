import { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';

const EVERY_MS = 10 * 60_000;
const DAY_MS = 24 * 3600 * 1000;
const BATCH = 500;
/** Batches per run: a long backlog is worked off over several runs, never in one long burst. */
const MAX_BATCHES = 100;

/**
 * Deletes what is older than a retention period every 10 minutes, BATCH rows at a time so
 * that no statement holds many locks (docs/api.md 10.8, 10.9). Every instance prunes; a batch
 * another instance already took finds nothing. A subclass names what it prunes and how.
 */
export abstract class RetentionTask implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  protected constructor(
    private readonly what: string,
    private readonly retentionDays: number,
    private readonly logger: Logger,
  ) {}

  /** Deletes up to `batch` rows older than `before`; how many went. */
  protected abstract pruneBatch(before: Date, batch: number): Promise<number>;

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.prune(new Date()), EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One run: how many rows it deleted (a failure is logged, and the next run tries again). */
  async prune(now: Date): Promise<number> {
    const before = new Date(now.getTime() - this.retentionDays * DAY_MS);
    let deleted = 0;
    try {
      for (let batch = 0; batch < MAX_BATCHES; batch++) {
        const n = await this.pruneBatch(before, BATCH);
        deleted += n;
        if (n < BATCH) break;
      }
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message } }, `${this.what} retention failed`);
    }
    if (deleted > 0) this.logger.info({ deleted }, `old ${this.what} pruned`);
    return deleted;
  }
}
