import { Module } from '@nestjs/common';
import { DeliveryModule } from '../delivery/delivery.module';
import { HealthController } from './health.controller';

@Module({ imports: [DeliveryModule], controllers: [HealthController] })
export class HealthModule {}
