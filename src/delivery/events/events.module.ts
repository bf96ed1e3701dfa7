import { Module, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditModule } from '../../audit/audit.module';
import { AppConfig } from '../../config/app-config';
import { Database, OWN_POOLS } from '../../database/database';
import { IdentityModule } from '../../identity/identity.module';
import { MetricsModule } from '../../metrics/metrics.module';
import { DispatchSignal } from '../dispatch-signal';
import { EventIngest } from './event-ingest.service';
import { EventRetention } from './event-retention';
import { EventsController } from './events.controller';
import { EventsRepository } from './events.repository';
import { Outbox } from './outbox';
import { IngestDatabase } from './ingest-database';
import { PendingLimit } from './pending-limit';

/**
 * Events in (docs/api.md 10.1, 10.1.1, 10.2, 10.12): POST {p}/events and {p}/events/batch, EventIngest (idempotency, backpressure,
 * the event and its fan-out in ingest's group commit, events written with a change), and their
 * retention. Provides the DispatchSignal too: every other part builds on this one, and each
 * signals this instance's dispatcher through it.
 */
@Module({
  imports: [AuditModule, IdentityModule, MetricsModule],
  controllers: [EventsController],
  providers: [
    {
      provide: IngestDatabase,
      inject: [Database, DataSource, AppConfig],
      useFactory: (shared: Database, dataSource: DataSource, config: AppConfig) =>
        Database.open(shared, dataSource, config, { connections: OWN_POOLS.ingest, readCommitted: true, multipleStatements: true }),
    },
    DispatchSignal,
    EventIngest,
    EventsRepository,
    PendingLimit,
    EventRetention,
    Outbox,
  ],
  exports: [EventIngest, DispatchSignal, Outbox, EventsRepository, PendingLimit],
})
export class EventsModule implements OnApplicationShutdown {
  constructor(private readonly ingestDatabase: IngestDatabase) {}

  /** After every part's last writes (the dispatcher's, in its beforeApplicationShutdown, may write an event). */
  async onApplicationShutdown(): Promise<void> {
    await this.ingestDatabase.close();
  }
}
