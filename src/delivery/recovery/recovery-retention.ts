import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { RetentionTask } from '../../common/retention-task';
import { PINO } from '../../logging/pino.provider';
import { RecoveriesRepository } from './recoveries.repository';

/** A done recovery is kept a day: as long as its Idempotency-Key holds (docs/api.md 10.14). */
@Injectable()
export class RecoveryRetention extends RetentionTask {
  constructor(
    private readonly recoveries: RecoveriesRepository,
    @Inject(PINO) logger: Logger,
  ) {
    super('recoveries', 1, logger);
  }

  protected pruneBatch(before: Date, batch: number): Promise<number> {
    return this.recoveries.pruneBatch(before, batch);
  }
}
