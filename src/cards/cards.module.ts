import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../delivery/events/events.module';
import { IdentityModule } from '../identity/identity.module';
import { MetricsModule } from '../metrics/metrics.module';
import { CardIssuers } from './card-issuers';
import { CardsController } from './cards.controller';
import { CardsRepository } from './cards.repository';
import { CardsService } from './cards.service';
import { CardEntity } from './entities/card.entity';
import { IssuerEntity } from './entities/issuer.entity';
import { IssuerPort } from './issuer.port';
import { ProcessorClient } from './processors/processor-client';

@Module({
  imports: [TypeOrmModule.forFeature([CardEntity, IssuerEntity]), IdentityModule, EventsModule, MetricsModule],
  controllers: [CardsController],
  providers: [CardsService, CardsRepository, ProcessorClient, { provide: IssuerPort, useClass: CardIssuers }],
  exports: [CardsService],
})
export class CardsModule {}
