import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { UrlSafetyModule } from '../url-safety/url-safety.module';
import { WebhookSourceEntity } from './entities/webhook-source.entity';
import { WebhookEntity } from './entities/webhook.entity';
import { WebhookRemovals } from './webhook-removals';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * The webhook operations (docs/api.md 5). Exports what the delivery feature builds on: the
 * reads and the enable/disable writes (WebhooksRepository), the hooks of a deletion
 * (WebhookRemovals), and the answer of a read (WebhooksService).
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookSourceEntity, WebhookEntity]), UrlSafetyModule, RateLimitModule, AuditModule],
  controllers: [WebhooksController],
  providers: [WebhooksService, WebhooksRepository, WebhookRemovals],
  exports: [WebhooksService, WebhooksRepository, WebhookRemovals],
})
export class WebhooksModule {}
