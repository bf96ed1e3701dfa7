import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { EventsModule } from '../delivery/events/events.module';
import { IdentityModule } from '../identity/identity.module';
import { MetricsModule } from '../metrics/metrics.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { CardIssuers } from './card-issuers';
import { CardsController } from './cards.controller';
import { CardsRepository } from './cards.repository';
import { CardsService } from './cards.service';
import { CardEntity } from './entities/card.entity';
import { IssuerEntity } from './entities/issuer.entity';
import { IssuerPort } from './issuer.port';
import { ProcessorClient } from './processors/processor-client';
import { PushProvisioningController } from './push-provisioning.controller';
import { PushProvisioningService } from './push-provisioning.service';
import { CardOperations } from './card-operations';

@Module({
  imports: [
    TypeOrmModule.forFeature([CardEntity, IssuerEntity]),
    IdentityModule,
    EventsModule,
    AuditModule,
    MetricsModule,
    RateLimitModule,
  ],
  controllers: [CardsController, PushProvisioningController],
  providers: [
    CardsService,
    PushProvisioningService,
    CardsRepository,
    ProcessorClient,
    { provide: IssuerPort, useClass: CardIssuers },
    { provide: CardOperations, useExisting: CardsService },
  ],
  // The CLI's port (card-operations.ts), not the service.
  exports: [CardOperations],
})
export class CardsModule {}
