import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { AuditRepository } from '../../audit/audit.repository';
import { AppConfig } from '../../config/app-config';
import { PINO } from '../../logging/pino.provider';
import { WebhooksRepository } from '../../webhooks/webhooks.repository';
import { AttemptOutcome } from '../delivery.model';
import { DISABLED_EVENT } from '../../event-types/event-types';
import { EventIngest } from '../events/event-ingest.service';
import { ClaimedDelivery, DeliveryQueue } from './delivery-queue';
import { EndpointHealth, healthAfter, HealthPolicy, isHealthy } from './endpoint-health';
import { EndpointHealthRepository } from './endpoint-health.repository';

const DAY_MS = 24 * 3600 * 1000;

/**
 * Endpoint health (docs/api.md 10.10), shared by every instance through webhook_health: each
 * recorded attempt moves its webhook's breaker and failure run (a healthy webhook that
 * succeeds writes nothing), and a webhook that has failed for DELIVERY_DISABLE_AFTER_DAYS is
 * disabled: its pending deliveries failed, an audit entry by no one, and a `webhook.disabled`
 * event to the organization's other enabled webhooks, all in one transaction (10.12).
 */
@Injectable()
export class EndpointHealthService {
  private readonly policy: HealthPolicy;
  /**
   * Webhooks whose health this instance last wrote as not healthy. A success skips the write
   * only when its claim read the webhook healthy and this instance has not seen it fail since:
   * an attempt in flight beside one that failed still clears the failure. (Another instance's
   * failure after the claim is cleared by the next success claimed after it.)
   */
  private readonly unhealthy = new Set<number>();

  constructor(
    private readonly health: EndpointHealthRepository,
    private readonly webhooks: WebhooksRepository,
    private readonly queue: DeliveryQueue,
    private readonly audit: AuditRepository,
    private readonly ingest: EventIngest,
    config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {
    const { breakerThreshold, breakerCooldownMs, disableAfterDays } = config.delivery;
    this.policy = { breakerThreshold, cooldownMs: breakerCooldownMs, disableAfterMs: disableAfterDays * DAY_MS };
  }

  /**
   * Applies a recorded attempt's outcome to its webhook's health (`delivery.health`: as read with
   * its claim): the health after it, or undefined when nothing changed (a success at a healthy
   * webhook).
   */
  async afterAttempt(
    delivery: Pick<ClaimedDelivery, 'webhookId' | 'health' | 'probe'>,
    outcome: AttemptOutcome,
    at: Date,
  ): Promise<EndpointHealth | undefined> {
    const { webhookId } = delivery;
    if (outcome.ok && isHealthy(delivery.health) && !this.unhealthy.has(webhookId)) return undefined;
    const { health, disable } = await this.health.update(webhookId, (current) => {
      const next = healthAfter(current, outcome, at.getTime(), this.policy, delivery.probe === true);
      return { health: next.health, result: next };
    });
    if (isHealthy(health)) this.unhealthy.delete(webhookId);
    else this.unhealthy.add(webhookId);
    if (disable) await this.disable(webhookId, at);
    return health;
  }

  private async disable(webhookId: number, at: Date): Promise<void> {
    let disabled: { organizationId: number; name: string } | undefined;
    await this.ingest.emitWith(async (tx) => {
      disabled = await this.webhooks.disable(tx, webhookId, at);
      if (disabled === undefined) return undefined;
      await this.queue.failPendingOf(tx, webhookId);
      await this.audit.record(
        tx,
        { organizationId: disabled.organizationId, actorUserId: null, action: 'webhook.disabled', webhook: disabled.name, fields: [] },
        at,
      );
      return {
        type: DISABLED_EVENT,
        organization: disabled.organizationId,
        data: { webhook: disabled.name },
        onlyEnabledExcept: webhookId,
      };
    });
    if (disabled !== undefined)
      this.logger.warn(
        { organization: disabled.organizationId, webhook: disabled.name },
        'webhook disabled: its attempts have failed for days',
      );
  }
}
