import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { RetentionTask } from '../common/retention-task';
import { AppConfig } from '../config/app-config';
import { PINO } from '../logging/pino.provider';
import { AuditRepository } from './audit.repository';

/** docs/api.md 10.9: audit entries are kept AUDIT_RETENTION_DAYS. */
@Injectable()
export class AuditRetention extends RetentionTask {
  constructor(
    private readonly audit: AuditRepository,
    config: AppConfig,
    @Inject(PINO) logger: Logger,
  ) {
    super('audit entries', config.delivery.auditRetentionDays, logger);
  }

  protected pruneBatch(before: Date, batch: number): Promise<number> {
    return this.audit.pruneBatch(before, batch);
  }
}
