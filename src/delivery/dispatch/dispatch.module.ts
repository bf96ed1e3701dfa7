import { Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditModule } from '../../audit/audit.module';
import { AppConfig } from '../../config/app-config';
import { Database, OWN_POOLS } from '../../database/database';
import { UnitOfWork } from '../../database/unit-of-work';
import { MetricsModule } from '../../metrics/metrics.module';
import { UrlSafetyModule } from '../../url-safety/url-safety.module';
import { WebhookRemovals } from '../../webhooks/webhook-removals';
import { WebhooksModule } from '../../webhooks/webhooks.module';
import { EventsModule } from '../events/events.module';
import { AttemptRunner } from './attempt-runner';
import { DeliveryDispatcher } from './delivery-dispatcher';
import { DeliveryQueue } from './delivery-queue';
import { QueueReadings } from './queue-readings';
import { DeliveryTransitions } from './delivery-transitions';
import { DispatchDatabase, DispatchWork } from './dispatch-database';
import { EndpointHealthRepository } from './endpoint-health.repository';
import { EndpointHealthService } from './endpoint-health.service';
import { WebhookDisablingService } from './webhook-disabling.service';
import { OAuthTokens } from './receiver-auth/oauth-tokens';
import { ReceiverAuthentication } from './receiver-auth/receiver-authentication';
import { PinnedHttp } from './pinned-http';
import { WebhookSender } from './webhook-sender';

/**
 * The dispatcher that works the queue (docs/api.md 10.5, 10.6, 10.10) on a pool of its own: scan
 * and claims (DeliveryQueue), fair slots, attempts (AttemptRunner, WebhookSender, OAuthTokens, PinnedHttp), records, and
 * endpoint health. Exports the queue (the console's replays, recoveries, the metrics' reading)
 * and the health rows (enabling a webhook resets them).
 */
@Module({
  imports: [EventsModule, WebhooksModule, UrlSafetyModule, AuditModule, MetricsModule],
  providers: [
    {
      provide: DispatchDatabase,
      inject: [Database, DataSource, AppConfig],
      useFactory: (shared: Database, dataSource: DataSource, config: AppConfig) =>
        Database.open(shared, dataSource, config, { connections: OWN_POOLS.dispatch, readCommitted: true }),
    },
    DeliveryQueue,
    { provide: QueueReadings, useExisting: DeliveryQueue },
    DeliveryTransitions,
    DeliveryDispatcher,
    AttemptRunner,
    WebhookSender,
    ReceiverAuthentication,
    PinnedHttp,
    OAuthTokens,
    { provide: DispatchWork, inject: [DispatchDatabase], useFactory: (db: DispatchDatabase) => new UnitOfWork(db) },
    EndpointHealthRepository,
    EndpointHealthService,
    WebhookDisablingService,
  ],
  exports: [DeliveryQueue, DeliveryTransitions, WebhookDisablingService, QueueReadings],
})
export class DispatchModule implements OnModuleInit, OnApplicationShutdown {
  constructor(
    private readonly removals: WebhookRemovals,
    private readonly transitions: DeliveryTransitions,
    private readonly dispatchDatabase: DispatchDatabase,
  ) {}

  /** docs/api.md 10.2: deleting a webhook cancels its deliveries that have not succeeded, in the deleting transaction. */
  onModuleInit(): void {
    this.removals.onRemove((tx, webhookId) => this.transitions.cancelPendingOf(tx, webhookId));
  }

  /** After the dispatcher's last records (its beforeApplicationShutdown). */
  async onApplicationShutdown(): Promise<void> {
    await this.dispatchDatabase.close();
  }
}
