import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '../config/app-config';
import { QueueReadings } from '../delivery/dispatch/queue-readings';
import { PINO } from '../logging/pino.provider';
import { WebhookAccess } from '../webhooks/webhook-access';
import { Metrics } from '../metrics/metrics';

/** How often each instance reads the queue; a scrape only reads what was read last. */
const QUEUE_READ_EVERY_MS = 15_000;
const WARN_EVERY_MS = 60_000;

/**
 * The queue's gauges (docs/api.md 9): depth, the oldest due delivery's age, open breakers and
 * disabled webhooks, read every QUEUE_READ_EVERY_MS by each instance that serves metrics, in
 * two cheap statements, rather than on each scrape: however many scrapers there are, and
 * however often they come, the database sees the same load. The figures are the whole
 * database's, so every instance reports the same (aggregate them with max, not sum).
 */
@Injectable()
export class QueueGauges implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();
  private stopped = false;
  private lastWarning = 0;

  constructor(
    private readonly queue: QueueReadings,
    private readonly webhooks: WebhookAccess,
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === undefined) return;
    await this.read();
    this.next();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.reading;
  }

  /** Reads the queue now and sets the gauges (NaN when the database could not be read). */
  read(): Promise<void> {
    this.reading = this.readOnce();
    return this.reading;
  }

  private next(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.read().then(() => this.next()), QUEUE_READ_EVERY_MS).unref();
  }

  private async readOnce(): Promise<void> {
    const now = Date.now();
    try {
      const [{ pending, oldestDueAt, breakersOpen }, disabledWebhooks] = await Promise.all([
        this.queue.stats(now),
        this.webhooks.countDisabled(),
      ]);
      const oldestDueSeconds = oldestDueAt === null ? 0 : Math.max(0, now - oldestDueAt) / 1000;
      this.metrics.queueRead({ pending, oldestDueSeconds, breakersOpen, disabledWebhooks });
    } catch (error) {
      this.metrics.queueUnknown();
      if (Date.now() - this.lastWarning < WARN_EVERY_MS) return;
      this.lastWarning = Date.now();
      this.logger.warn({ err: { message: (error as Error)?.message } }, 'could not read the delivery queue for the metrics');
    }
  }
}
