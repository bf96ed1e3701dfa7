import { Injectable } from '@nestjs/common';
import { Errors } from '../common/domain-error';
import type { Transaction } from '../database/unit-of-work';
import type { WebhookDto } from './dto/webhook-responses.dto';
import { HeldWebhook, WebhookAccess, WebhookIdentity } from './webhook-access';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** The port the other features hold (WebhookAccess), over the webhooks' own repository and service. */
@Injectable()
export class WebhookAccessService implements WebhookAccess {
  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly service: WebhooksService,
  ) {}

  findIdentity(organizationId: number, name: string): Promise<WebhookIdentity | undefined> {
    return this.webhooks.findIdentity(organizationId, name);
  }

  async findEnabled(organizationId: number, name: string): Promise<WebhookIdentity> {
    const webhook = await this.webhooks.findIdentity(organizationId, name);
    if (webhook === undefined) throw Errors.notFound();
    if (webhook.disabled) throw Errors.disabled();
    return webhook;
  }

  lockShared(tx: Transaction, webhookId: number): Promise<HeldWebhook> {
    return this.webhooks.lockShared(tx, webhookId);
  }

  disable(tx: Transaction, webhookId: number, at: Date): Promise<{ organizationId: number; name: string } | undefined> {
    return this.webhooks.disable(tx, webhookId, at);
  }

  enable(tx: Transaction, organizationId: number, name: string): Promise<{ id: number; wasDisabled: boolean } | undefined> {
    return this.webhooks.enable(tx, organizationId, name);
  }

  read(organizationId: number, name: string): Promise<WebhookDto> {
    return this.service.get(organizationId, name);
  }

  countDisabled(): Promise<number> {
    return this.webhooks.countDisabled();
  }
}
