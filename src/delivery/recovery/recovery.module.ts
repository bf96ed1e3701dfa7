import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { RateLimitModule } from '../../rate-limit/rate-limit.module';
import { WebhooksModule } from '../../webhooks/webhooks.module';
import { DispatchModule } from '../dispatch/dispatch.module';
import { EventsModule } from '../events/events.module';
import { DeliveryRecoveryService } from './delivery-recovery.service';
import { RecoveriesRepository } from './recoveries.repository';
import { RecoveryRetention } from './recovery-retention';
import { RecoveryWorker } from './recovery-worker';
import { WebhookRecoveryController } from './webhook-recovery.controller';
import { WebhookRecoveries } from './webhook-recoveries';

/**
 * Recovery (docs/api.md 10.14): every failed delivery of a webhook since a time, recorded with
 * its first batch when asked (POST …/recover, and the CLI's `webhook recover`, through the port
 * WebhookRecoveries), then worked in claimed batches by the RecoveryWorker of every delivering instance.
 */
@Module({
  imports: [EventsModule, DispatchModule, WebhooksModule, AuditModule, RateLimitModule],
  controllers: [WebhookRecoveryController],
  providers: [
    DeliveryRecoveryService,
    RecoveriesRepository,
    RecoveryWorker,
    RecoveryRetention,
    { provide: WebhookRecoveries, useExisting: DeliveryRecoveryService },
  ],
  exports: [WebhookRecoveries],
})
export class RecoveryModule {}
