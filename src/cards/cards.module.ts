import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../delivery/events/events.module';
import { IdentityModule } from '../identity/identity.module';
import { CardsController } from './cards.controller';
import { CardsRepository } from './cards.repository';
import { CardsService } from './cards.service';
import { CardEntity } from './entities/card.entity';
import { IssuerEntity } from './entities/issuer.entity';
import { IssuerPort, StoredCredentialsIssuer } from './issuer.port';

@Module({
  imports: [TypeOrmModule.forFeature([CardEntity, IssuerEntity]), IdentityModule, EventsModule],
  controllers: [CardsController],
  providers: [CardsService, CardsRepository, { provide: IssuerPort, useClass: StoredCredentialsIssuer }],
  exports: [CardsService],
})
export class CardsModule {}
