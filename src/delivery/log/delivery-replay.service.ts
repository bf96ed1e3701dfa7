import type { Actor } from '../../common/actor';
import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../../audit/audit-trail';
import { Errors } from '../../common/domain-error';
import { UnitOfWork } from '../../database/unit-of-work';
import { WebhookAccess } from '../../webhooks/webhook-access';
import { DispatchSignal } from '../dispatch-signal';
import { DeliveryTransitions } from '../dispatch/delivery-transitions';
import { DeliveryLogRepository } from './delivery-log.repository';
import type { RetriedDeliveryDto } from './dto/delivery-log.dto';

/**
 * `POST …/deliveries/{id}/retry` (docs/api.md 10.7): a delivery sent again through the queue and
 * the dispatcher, as every event.
 */
@Injectable()
export class DeliveryReplayService {
  constructor(
    private readonly log: DeliveryLogRepository,
    private readonly transitions: DeliveryTransitions,
    private readonly webhooks: WebhookAccess,
    private readonly work: UnitOfWork,
    private readonly audit: AuditTrail,
    private readonly dispatch: DispatchSignal,
  ) {}

  /**
   * A succeeded or failed delivery is pending again, due now, in the lane of first attempts
   * (someone is waiting for it); a pending one not in flight is brought forward; either way the
   * retry schedule starts again, with the audit entry in the same transaction. The webhook's row
   * is read under a share lock first, so that a disabling is wholly before the replay (409) or
   * after it (and fails the pending delivery). 404 no such delivery of the webhook; 409
   * cancelled, or the webhook is disabled.
   */
  async replay(organizationId: number, actor: Actor, name: string, id: number): Promise<RetriedDeliveryDto> {
    const webhook = await this.webhooks.findEnabled(organizationId, name);
    const now = new Date();
    const state = await this.work.run(
      async (tx) => {
        const held = await this.webhooks.lockShared(tx, webhook.id);
        if (held !== 'enabled') return held;
        const state = await this.log.lockState(tx, webhook.id, id);
        if (state === undefined || state === 'cancelled') return state;
        await this.transitions.requeue(tx, [id], now, 'fresh');
        await this.audit.record(tx, { organizationId, action: 'delivery.retried', webhook: name, fields: [] }, now);
        tx.afterCommit(() => this.dispatch.wake());
        return state;
      },
      { actor },
    );
    if (state === undefined || state === 'gone') throw Errors.notFound();
    if (state === 'disabled') throw Errors.disabled();
    if (state === 'cancelled') throw Errors.cancelled();
    return { id, state: 'pending' };
  }
}
