import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '../config/app-config';
import { PINO } from '../logging/pino.provider';
import { EventsRepository } from './events.repository';

const EVERY_MS = 10 * 60_000;
const BATCH = 500;
/** Batches per run: a long backlog is worked off over several runs, never in one long burst. */
const MAX_BATCHES = 100;

/**
 * docs/api.md 10.8: events (with their deliveries and attempts) older than
 * DELIVERY_RETENTION_DAYS are deleted, BATCH at a time so that no statement holds many locks.
 * Every instance prunes; a batch another instance already took finds nothing.
 */
@Injectable()
export class RetentionPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private readonly retentionMs: number;

  constructor(
    private readonly events: EventsRepository,
    config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {
    this.retentionMs = config.delivery.retentionDays * 24 * 3600 * 1000;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.prune(new Date()), EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One run: returns how many events it deleted. */
  async prune(now: Date): Promise<number> {
    const before = new Date(now.getTime() - this.retentionMs);
    let deleted = 0;
    try {
      for (let batch = 0; batch < MAX_BATCHES; batch++) {
        const n = await this.events.pruneBatch(before, BATCH);
        deleted += n;
        if (n < BATCH) break;
      }
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message } }, 'retention pruning failed');
    }
    if (deleted > 0) this.logger.info({ deleted }, 'old events pruned');
    return deleted;
  }
}
