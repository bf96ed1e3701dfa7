import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { UrlSafetyModule } from '../url-safety/url-safety.module';
import { WebhookSourceEntity } from './entities/webhook-source.entity';
import { WebhookEntity } from './entities/webhook.entity';
import { WebhookAccess } from './webhook-access';
import { WebhookAccessService } from './webhook-access.service';
import { TargetCredentials } from './target-credentials';
import { WebhookRemovals } from './webhook-removals';
import { WebhooksController } from './webhooks.controller';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/**
 * The webhook operations (docs/api.md 5). Exports what the other features build on, and only
 * that: the port they read webhooks through and disable and enable them by (WebhookAccess), the
 * hooks of a deletion (WebhookRemovals), and the opening of a target's credentials for an attempt
 * (TargetCredentials).
 */
@Module({
  imports: [TypeOrmModule.forFeature([WebhookSourceEntity, WebhookEntity]), UrlSafetyModule, RateLimitModule, AuditModule],
  controllers: [WebhooksController],
  providers: [
    WebhooksService,
    WebhooksRepository,
    WebhookRemovals,
    TargetCredentials,
    { provide: WebhookAccess, useClass: WebhookAccessService },
  ],
  exports: [WebhookAccess, WebhookRemovals, TargetCredentials],
})
export class WebhooksModule {}
