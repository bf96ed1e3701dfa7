import type { Actor } from '../../common/actor';
import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../../audit/audit-trail';
import { Errors } from '../../common/domain-error';
import { SecretBox } from '../../crypto/secret-box';
import { UnitOfWork } from '../../database/unit-of-work';
import { TEST_EVENT } from '../../event-types/event-types';
import { Metrics } from '../../metrics/metrics';
import { Tracing } from '../../tracing/tracing';
import { WebhookAccess } from '../../webhooks/webhook-access';
import { DispatchSignal } from '../dispatch-signal';
import { EventsRepository } from '../events/events.repository';
import { newEvent, serializedEvent } from '../events/new-event';
import type { TestDeliveryDto } from './dto/delivery-log.dto';

/**
 * `POST {p}/webhook/{name}/test` (docs/api.md 10.7): a `webhook.test` event with data
 * `{"webhook": name}`, delivered to that webhook's `url` only, through the same queue,
 * dispatcher and log as every event.
 */
@Injectable()
export class WebhookTestService {
  constructor(
    private readonly webhooks: WebhookAccess,
    private readonly events: EventsRepository,
    private readonly work: UnitOfWork,
    private readonly audit: AuditTrail,
    private readonly secrets: SecretBox,
    private readonly dispatch: DispatchSignal,
    private readonly metrics: Metrics,
    private readonly tracing: Tracing,
  ) {}

  /**
   * The event, its one delivery and the audit entry in one transaction that holds the webhook's
   * row in share mode first, so that a disabling is wholly before (409, also when it commits
   * first) or after it (and fails the pending delivery): never a pending delivery on a disabled
   * webhook. 404 when the webhook is gone.
   */
  async send(organizationId: number, actor: Actor, name: string): Promise<TestDeliveryDto> {
    const webhook = await this.webhooks.findEnabled(organizationId, name);
    const trace = this.tracing.newEventTrace('test ping', { 'organization.id': organizationId });
    const { event } = newEvent(this.secrets, serializedEvent(TEST_EVENT, organizationId, { webhook: name }), trace);
    const deliveryId = await this.work.run(
      async (tx) => {
        const held = await this.webhooks.lockShared(tx, webhook.id);
        if (held !== 'enabled') return held;
        const id = await this.events.insertForWebhook(tx, event, webhook.id);
        await this.audit.record(tx, { organizationId, action: 'webhook.tested', webhook: name, fields: [] }, event.createdAt);
        tx.afterCommit(() => {
          this.metrics.eventAccepted(TEST_EVENT, 'console');
          this.dispatch.wake();
        });
        return id;
      },
      { actor },
    );
    if (deliveryId === 'disabled') throw Errors.disabled();
    if (deliveryId === 'gone') throw Errors.notFound();
    return { id: deliveryId, event: { id: event.id, type: TEST_EVENT } };
  }
}
