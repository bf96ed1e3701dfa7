import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { RetentionTask } from '../../common/retention-task';
import { AppConfig } from '../../config/app-config';
import { PINO } from '../../logging/pino.provider';
import { EventsRepository } from './events.repository';

/** docs/api.md 10.8: events older than DELIVERY_RETENTION_DAYS go, with their deliveries and attempts. */
@Injectable()
export class EventRetention extends RetentionTask {
  constructor(
    private readonly events: EventsRepository,
    config: AppConfig,
    @Inject(PINO) logger: Logger,
  ) {
    super('events', config.delivery.retentionDays, logger);
  }

  protected pruneBatch(before: Date, batch: number): Promise<number> {
    return this.events.pruneBatch(before, batch);
  }
}
