import { Injectable } from '@nestjs/common';
import type { Actor } from '../../audit/audit.model';
import { Errors } from '../../common/domain-error';
import { DeliveryDispatcher } from '../dispatch/delivery-dispatcher';
import { DeliveryLogRepository } from './delivery-log.repository';
import { EventIngest } from '../events/event-ingest.service';

/**
 * What the admin console can do with deliveries (docs/api.md 10.7): send one again, and send a
 * test event. Both go through the queue and the dispatcher, as every event does.
 */
@Injectable()
export class DeliveryActionsService {
  constructor(
    private readonly log: DeliveryLogRepository,
    private readonly ingest: EventIngest,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  /** 404 no such delivery of the webhook; 409 cancelled; else pending, attempted now. */
  async retry(organizationId: number, actor: Actor, name: string, id: number): Promise<{ id: number; state: 'pending' }> {
    const state = await this.log.replay({ id: await this.webhookId(organizationId, name), name, organizationId }, id, actor, new Date());
    if (state === undefined) throw Errors.notFound();
    if (state === 'cancelled') throw Errors.cancelled();
    this.dispatcher.wake();
    return { id, state: 'pending' };
  }

  async test(organizationId: number, actor: Actor, name: string) {
    return this.ingest.test(organizationId, actor, await this.webhookId(organizationId, name), name);
  }

  private async webhookId(organizationId: number, name: string): Promise<number> {
    const id = await this.log.findWebhookId(organizationId, name);
    if (id === undefined) throw Errors.notFound();
    return id;
  }
}
