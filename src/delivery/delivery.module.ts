import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { PageCursors } from '../common/page-cursors';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { UrlSafetyModule } from '../url-safety/url-safety.module';
import { WebhookSourceEntity } from '../webhooks/entities/webhook-source.entity';
import { WebhookEntity } from '../webhooks/entities/webhook.entity';
import { DeliveryDispatcher } from './dispatch/delivery-dispatcher';
import { DeliveryActionsService } from './log/delivery-actions.service';
import { DeliveryLogRepository } from './log/delivery-log.repository';
import { DeliveryLogService } from './log/delivery-log.service';
import { DeliveryQueue } from './dispatch/delivery-queue';
import { DeliveryAttemptEntity } from './entities/delivery-attempt.entity';
import { DeliveryEntity } from './entities/delivery.entity';
import { EventEntity } from './entities/event.entity';
import { EventIngest } from './events/event-ingest.service';
import { EventsController } from './events/events.controller';
import { EventsRepository } from './events/events.repository';
import { EventRetention } from './events/event-retention';
import { WebhookDeliveriesController } from './log/webhook-deliveries.controller';
import { WebhookSender } from './dispatch/webhook-sender';

/**
 * Event delivery (docs/api.md 10): ingest (controller, EventIngest, EventsRepository), the queue
 * (DeliveryQueue: claims and leases), the dispatcher that works it, the sender that makes each
 * attempt, retention, and what the admin console reads and does (10.7: the log, replay, test).
 */
@Module({
  imports: [
    // The webhook entities too: a delivery refers to its webhook (the CLI has no WebhooksModule).
    TypeOrmModule.forFeature([EventEntity, DeliveryEntity, DeliveryAttemptEntity, WebhookEntity, WebhookSourceEntity]),
    UrlSafetyModule,
    RateLimitModule,
    AuditModule,
  ],
  controllers: [EventsController, WebhookDeliveriesController],
  providers: [
    EventIngest,
    EventsRepository,
    DeliveryQueue,
    DeliveryDispatcher,
    WebhookSender,
    EventRetention,
    DeliveryLogService,
    DeliveryActionsService,
    DeliveryLogRepository,
    PageCursors,
  ],
  exports: [EventIngest, DeliveryQueue],
})
export class DeliveryModule {}
