import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AuditTrail } from '../../audit/audit-trail';
import { Errors } from '../../common/domain-error';
import { UnitOfWork } from '../../database/unit-of-work';
import { DISABLED_EVENT } from '../../event-types/event-types';
import { type Actor, SERVICE } from '../../common/actor';
import { PINO } from '../../logging/pino.provider';
import type { WebhookDto } from '../../webhooks/dto/webhook-responses.dto';
import { WebhookAccess } from '../../webhooks/webhook-access';
import { Outbox } from '../events/outbox';
import { DeliveryTransitions } from './delivery-transitions';
import { EndpointHealthRepository } from './endpoint-health.repository';

/**
 * A webhook disabled by the service, and enabled again by its organization (docs/api.md 10.10):
 * each one transaction on the main pool, under the webhook's source lock like every webhook
 * write, with its audit entry.
 */
@Injectable()
export class WebhookDisablingService {
  constructor(
    private readonly webhooks: WebhookAccess,
    private readonly health: EndpointHealthRepository,
    private readonly transitions: DeliveryTransitions,
    private readonly work: UnitOfWork,
    private readonly audit: AuditTrail,
    private readonly outbox: Outbox,
    @Inject(PINO) private readonly logger: Logger,
  ) {}

  /**
   * A webhook that has failed for DELIVERY_DISABLE_AFTER_DAYS (the endpoint's verdict) is
   * disabled, by the service itself: its pending deliveries failed, an audit entry with no
   * actor, and a `webhook.disabled` event to the organization's other enabled webhooks through
   * the Outbox, all in one transaction (10.12). Nothing when it is gone or already disabled.
   */
  async disable(webhookId: number, at: Date): Promise<void> {
    const disabled = await this.work.run(
      async (tx) => {
        const webhook = await this.webhooks.disable(tx, webhookId, at);
        if (webhook === undefined) return undefined;
        await this.transitions.failPendingOf(tx, webhookId, new Date());
        await this.audit.record(
          tx,
          { organizationId: webhook.organizationId, action: 'webhook.disabled', webhook: webhook.name, fields: [] },
          at,
        );
        await this.outbox.emit(tx, {
          type: DISABLED_EVENT,
          organization: webhook.organizationId,
          data: { webhook: webhook.name },
          onlyEnabledExcept: webhookId,
        });
        return webhook;
      },
      { actor: SERVICE },
    );
    if (disabled !== undefined) {
      this.logger.warn(
        { organization: disabled.organizationId, webhook: disabled.name },
        'webhook disabled: its attempts have failed for days',
      );
    }
  }

  /**
   * `POST …/enable`: the webhook is enabled and its endpoint's record starts afresh (no failure
   * run, breaker closed), with the audit entry in the same transaction; an enabled webhook is
   * left as it is. The webhook as read; 404 when there is no such webhook.
   */
  async enable(organizationId: number, actor: Actor, name: string): Promise<WebhookDto> {
    const found = await this.work.run(
      async (tx) => {
        const webhook = await this.webhooks.enable(tx, organizationId, name);
        if (webhook?.wasDisabled) {
          await this.health.reset(tx, webhook.id);
          await this.audit.record(tx, { organizationId, action: 'webhook.enabled', webhook: name, fields: [] });
        }
        return webhook;
      },
      { actor },
    );
    if (found === undefined) throw Errors.notFound();
    return this.webhooks.read(organizationId, name);
  }
}
