import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { IdentityModule } from '../identity/identity.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { AuditController } from './audit.controller';
import { AuditRetention } from './audit-retention';
import { AuditTrail } from './audit-trail';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditEntryEntity } from './entities/audit-entry.entity';

/**
 * The audit trail (docs/api.md 10.9): AuditTrail.record writes an entry inside the transaction
 * of the change it records (the webhook and delivery services call it), by the work's actor;
 * `GET {p}/audit` reads it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEntryEntity]), RateLimitModule, IdentityModule],
  controllers: [AuditController],
  providers: [AuditRepository, AuditTrail, AuditService, AuditRetention],
  exports: [AuditTrail],
})
export class AuditModule {}
