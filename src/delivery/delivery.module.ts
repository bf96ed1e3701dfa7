import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DispatchModule } from './dispatch/dispatch.module';
import { DeliveryAttemptEntity } from './entities/delivery-attempt.entity';
import { DeliveryRecoveryEntity } from './entities/delivery-recovery.entity';
import { DeliveryEntity } from './entities/delivery.entity';
import { EventEntity } from './entities/event.entity';
import { WebhookHealthEntity } from './entities/webhook-health.entity';
import { EventsModule } from './events/events.module';
import { DeliveryLogModule } from './log/delivery-log.module';
import { RecoveryModule } from './recovery/recovery.module';

/**
 * Event delivery (docs/api.md 10), in four parts, each a module of its own: events in
 * (EventsModule: POST /events, ingest, backpressure, retention), the dispatcher that works the
 * queue (DispatchModule: scan and claims, fair slots, attempts, records, endpoint health), what
 * the admin console reads and does (DeliveryLogModule: the log, replay, test, enable), and
 * recovery (RecoveryModule: every failed delivery since a time, recorded at once and worked in
 * batches). This module composes them for the server and registers the feature's tables, which
 * the parts share; another feature imports the part whose service it calls (cards and the CLI
 * EventsModule, the CLI RecoveryModule, monitoring DispatchModule).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([EventEntity, DeliveryEntity, DeliveryAttemptEntity, WebhookHealthEntity, DeliveryRecoveryEntity]),
    EventsModule,
    DispatchModule,
    DeliveryLogModule,
    RecoveryModule,
  ],
})
export class DeliveryModule {}
