import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { MetricsModule } from '../../metrics/metrics.module';
import { RateLimitModule } from '../../rate-limit/rate-limit.module';
import { WebhooksModule } from '../../webhooks/webhooks.module';
import { DispatchModule } from '../dispatch/dispatch.module';
import { EventsModule } from '../events/events.module';
import { DeliveryLogRepository } from './delivery-log.repository';
import { DeliveryLogService } from './delivery-log.service';
import { DeliveryReplayService } from './delivery-replay.service';
import { WebhookTestService } from './webhook-test.service';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';

/** What the admin console reads and does (docs/api.md 10.7, 10.10): a webhook's delivery log, replay, test and enable. */
@Module({
  imports: [EventsModule, DispatchModule, WebhooksModule, AuditModule, RateLimitModule, MetricsModule],
  controllers: [WebhookDeliveriesController],
  providers: [DeliveryLogService, DeliveryReplayService, WebhookTestService, DeliveryLogRepository],
})
export class DeliveryLogModule {}
