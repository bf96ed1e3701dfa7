import { Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AuditModule } from '../audit/audit.module';
import { PageCursors } from '../crypto/page-cursors';
import { AppConfig } from '../config/app-config';
import { Database, OWN_POOLS } from '../database/database';
import { UnitOfWork } from '../database/unit-of-work';
import { MetricsModule } from '../metrics/metrics.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { UrlSafetyModule } from '../url-safety/url-safety.module';
import { WebhookRemovals } from '../webhooks/webhook-removals';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { DispatchSignal } from './dispatch-signal';
import { AttemptRunner } from './dispatch/attempt-runner';
import { DeliveryDispatcher } from './dispatch/delivery-dispatcher';
import { DeliveryQueue } from './dispatch/delivery-queue';
import { DispatchDatabase, DispatchWork } from './dispatch/dispatch-database';
import { EndpointHealthRepository } from './dispatch/endpoint-health.repository';
import { EndpointHealthService } from './dispatch/endpoint-health.service';
import { WebhookDisablingService } from './dispatch/webhook-disabling.service';
import { WebhookSender } from './dispatch/webhook-sender';
import { DeliveryAttemptEntity } from './entities/delivery-attempt.entity';
import { DeliveryEntity } from './entities/delivery.entity';
import { EventEntity } from './entities/event.entity';
import { DeliveryRecoveryEntity } from './entities/delivery-recovery.entity';
import { WebhookHealthEntity } from './entities/webhook-health.entity';
import { EventIngest } from './events/event-ingest.service';
import { EventRetention } from './events/event-retention';
import { EventsController } from './events/events.controller';
import { EventsRepository } from './events/events.repository';
import { IngestDatabase } from './events/ingest-database';
import { Outbox } from './events/outbox';
import { PendingLimit } from './events/pending-limit';
import { DeliveryLogRepository } from './log/delivery-log.repository';
import { DeliveryLogService } from './log/delivery-log.service';
import { DeliveryReplayService } from './log/delivery-replay.service';
import { WebhookTestService } from './log/webhook-test.service';
import { WebhookDeliveriesController } from './log/webhook-deliveries.controller';
import { DeliveryRecoveryService } from './recovery/delivery-recovery.service';
import { RecoveriesRepository } from './recovery/recoveries.repository';
import { RecoveryRetention } from './recovery/recovery-retention';
import { RecoveryWorker } from './recovery/recovery-worker';
import { WebhookRecoveryController } from './recovery/webhook-recovery.controller';

/**
 * Event delivery (docs/api.md 10), in four parts: events in (events/: POST /events, ingest,
 * backpressure, retention), the dispatcher that works the queue (dispatch/: scan and claims,
 * fair slots, attempts, records, endpoint health), what the admin console reads and does
 * (log/: the log, replay, test, enable), and recovery (recovery/: every failed delivery since a
 * time, recorded at once and worked in batches). It builds on the webhooks feature (their tables
 * through WebhookSql, their enable/disable writes) and cancels a deleted webhook's deliveries
 * in the deleting transaction (WebhookRemovals).
 */
@Module({
  imports: [
    TypeOrmModule.forFeature([EventEntity, DeliveryEntity, DeliveryAttemptEntity, WebhookHealthEntity, DeliveryRecoveryEntity]),
    WebhooksModule,
    UrlSafetyModule,
    RateLimitModule,
    AuditModule,
    MetricsModule,
  ],
  controllers: [EventsController, WebhookDeliveriesController, WebhookRecoveryController],
  providers: [
    {
      provide: DispatchDatabase,
      inject: [Database, DataSource, AppConfig],
      useFactory: (shared: Database, dataSource: DataSource, config: AppConfig) =>
        Database.open(shared, dataSource, config, { connections: OWN_POOLS.dispatch, readCommitted: true }),
    },
    { provide: DispatchWork, inject: [DispatchDatabase], useFactory: (db: DispatchDatabase) => new UnitOfWork(db) },
    {
      provide: IngestDatabase,
      inject: [Database, DataSource, AppConfig],
      useFactory: (shared: Database, dataSource: DataSource, config: AppConfig) =>
        Database.open(shared, dataSource, config, { connections: OWN_POOLS.ingest, readCommitted: true, multipleStatements: true }),
    },
    DispatchSignal,
    EventIngest,
    Outbox,
    EventsRepository,
    PendingLimit,
    EventRetention,
    DeliveryQueue,
    DeliveryDispatcher,
    AttemptRunner,
    WebhookSender,
    EndpointHealthRepository,
    EndpointHealthService,
    WebhookDisablingService,
    DeliveryLogService,
    DeliveryReplayService,
    WebhookTestService,
    DeliveryLogRepository,
    PageCursors,
    DeliveryRecoveryService,
    RecoveriesRepository,
    RecoveryWorker,
    RecoveryRetention,
  ],
  exports: [EventIngest, Outbox, DeliveryQueue, DeliveryRecoveryService],
})
export class DeliveryModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly removals: WebhookRemovals,
    private readonly queue: DeliveryQueue,
    private readonly dispatchDatabase: DispatchDatabase,
    private readonly ingestDatabase: IngestDatabase,
  ) {}

  /** docs/api.md 10.2: deleting a webhook cancels its deliveries that have not succeeded, in the deleting transaction. */
  onModuleInit(): void {
    this.removals.onRemove((tx, webhookId) => this.queue.cancelPendingOf(tx, webhookId));
  }

  /** After the dispatcher's last records (its beforeApplicationShutdown). */
  async onApplicationShutdown(): Promise<void> {
    await this.dispatchDatabase.close();
    await this.ingestDatabase.close();
  }
}
