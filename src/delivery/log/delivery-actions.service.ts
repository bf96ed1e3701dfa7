import { Injectable } from '@nestjs/common';
import type { Actor } from '../../audit/audit.model';
import { AuditRepository } from '../../audit/audit.repository';
import { Errors } from '../../common/domain-error';
import { Database } from '../../database/database';
import type { WebhookDto } from '../../webhooks/dto/webhook-responses.dto';
import { WebhookIdentity, WebhooksRepository } from '../../webhooks/webhooks.repository';
import { WebhooksService } from '../../webhooks/webhooks.service';
import { DispatchSignal } from '../dispatch-signal';
import { EndpointHealthRepository } from '../dispatch/endpoint-health.repository';
import { EventIngest } from '../events/event-ingest.service';
import { DeliveryLogRepository } from './delivery-log.repository';
import type { RetriedDeliveryDto, TestDeliveryDto } from './dto/delivery-log.dto';

/**
 * What the admin console can do with a webhook's deliveries (docs/api.md 10.7, 10.10): send one
 * again, send a test event (both through the queue and the dispatcher, as every event), and
 * enable a webhook the service disabled. A disabled webhook takes no replay or test: nothing is
 * sent to it until it is enabled.
 */
@Injectable()
export class DeliveryActionsService {
  constructor(
    private readonly log: DeliveryLogRepository,
    private readonly ingest: EventIngest,
    private readonly dispatch: DispatchSignal,
    private readonly webhooks: WebhooksRepository,
    private readonly webhookReads: WebhooksService,
    private readonly health: EndpointHealthRepository,
    private readonly audit: AuditRepository,
    private readonly db: Database,
  ) {}

  /** 404 no such delivery of the webhook; 409 cancelled, or the webhook is disabled; else pending, attempted now. */
  async retry(organizationId: number, actor: Actor, name: string, id: number): Promise<RetriedDeliveryDto> {
    const webhook = await this.enabledWebhook(organizationId, name);
    const state = await this.log.replay({ id: webhook.id, name, organizationId }, id, actor, new Date());
    if (state === undefined) throw Errors.notFound();
    if (state === 'disabled') throw Errors.disabled();
    if (state === 'cancelled') throw Errors.cancelled();
    this.dispatch.wake();
    return { id, state: 'pending' };
  }

  async test(organizationId: number, actor: Actor, name: string): Promise<TestDeliveryDto> {
    return this.ingest.test(organizationId, actor, (await this.enabledWebhook(organizationId, name)).id, name);
  }

  /**
   * `POST …/enable` (docs/api.md 10.10): the webhook is enabled and its endpoint's record starts
   * afresh (no failure run, breaker closed), with the audit entry in the same transaction; an
   * enabled webhook is left as it is. The webhook as read.
   */
  async enable(organizationId: number, actor: Actor, name: string): Promise<WebhookDto> {
    const found = await this.db.transaction(async (tx) => {
      const webhook = await this.webhooks.enable(tx, organizationId, name);
      if (webhook?.wasDisabled) {
        await this.health.reset(tx, webhook.id);
        await this.audit.record(tx, { organizationId, actorUserId: actor.userId, action: 'webhook.enabled', webhook: name, fields: [] });
      }
      return webhook;
    });
    if (found === undefined) throw Errors.notFound();
    return this.webhookReads.get(organizationId, name);
  }

  private async enabledWebhook(organizationId: number, name: string): Promise<WebhookIdentity> {
    const webhook = await this.webhooks.findIdentity(organizationId, name);
    if (webhook === undefined) throw Errors.notFound();
    if (webhook.disabled) throw Errors.disabled();
    return webhook;
  }
}
