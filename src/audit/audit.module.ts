import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { AuditController } from './audit.controller';
import { AuditRetention } from './audit-retention';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditEntryEntity } from './entities/audit-entry.entity';

/**
 * The audit trail (docs/api.md 10.9): AuditRepository.record writes an entry inside the
 * transaction of the change it records (the webhook and delivery repositories call it);
 * `GET {p}/audit` reads it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity]), RateLimitModule],
  controllers: [AuditController],
  providers: [AuditRepository, AuditService, AuditRetention],
  exports: [AuditRepository],
})
export class AuditModule {}
