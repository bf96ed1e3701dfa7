import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { UrlSafetyModule } from '../url-safety/url-safety.module';
import { WebhookSourceEntity } from './entities/webhook-source.entity';
import { WebhookEntity } from './entities/webhook.entity';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

@Module({
  imports: [TypeOrmModule.forFeature([WebhookSourceEntity, WebhookEntity]), UrlSafetyModule, RateLimitModule, AuditModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhooksRepository],
})
export class WebhooksModule {}
