import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Logger } from 'pino';
import { AuditRepository } from '../audit/audit.repository';
import { AppConfig } from '../config/app-config';
import { PINO } from '../logging/pino.provider';
import { EventsRepository } from './events.repository';

const EVERY_MS = 10 * 60_000;
const DAY_MS = 24 * 3600 * 1000;
const BATCH = 500;
/** Batches per run: a long backlog is worked off over several runs, never in one long burst. */
const MAX_BATCHES = 100;

/**
 * docs/api.md 10.8, 10.9: events (with their deliveries and attempts) older than
 * DELIVERY_RETENTION_DAYS, and audit entries older than AUDIT_RETENTION_DAYS, are deleted,
 * BATCH at a time so that no statement holds many locks.
 * Every instance prunes; a batch another instance already took finds nothing.
 */
@Injectable()
export class RetentionPruner implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private readonly retentionMs: number;
  private readonly auditRetentionMs: number;

  constructor(
    private readonly events: EventsRepository,
    private readonly audit: AuditRepository,
    config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {
    this.retentionMs = config.delivery.retentionDays * DAY_MS;
    this.auditRetentionMs = config.delivery.auditRetentionDays * DAY_MS;
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.prune(new Date()), EVERY_MS).unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** One run: returns how many events and audit entries it deleted. */
  async prune(now: Date): Promise<{ events: number; auditEntries: number }> {
    const events = await this.inBatches((batch) => this.events.pruneBatch(new Date(now.getTime() - this.retentionMs), batch));
    const auditEntries = await this.inBatches((batch) => this.audit.pruneBatch(new Date(now.getTime() - this.auditRetentionMs), batch));
    if (events + auditEntries > 0) this.logger.info({ events, auditEntries }, 'old events and audit entries pruned');
    return { events, auditEntries };
  }

  private async inBatches(pruneBatch: (batch: number) => Promise<number>): Promise<number> {
    let deleted = 0;
    try {
      for (let batch = 0; batch < MAX_BATCHES; batch++) {
        const n = await pruneBatch(BATCH);
        deleted += n;
        if (n < BATCH) break;
      }
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message } }, 'retention pruning failed');
    }
    return deleted;
  }
}
