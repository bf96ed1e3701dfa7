import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../audit/audit.model';
import { Errors } from '../../common/domain-error';
import { SealedSecret, SecretBox } from '../../crypto/secret-box';
import { isForeignKeyViolation } from '../../database/database-errors';
import { eventPayloadBinding } from '../delivery.model';
import { DeliveryDispatcher } from '../dispatch/delivery-dispatcher';
import type { IncomingEvent } from './event-body.pipe';
import { EventsRepository, KeyedEvent } from './events.repository';

/** An accepted event, as `POST {p}/events` answers it (202). */
export interface AcceptedEvent {
  readonly id: string;
  readonly deliveries: number;
}

/** docs/api.md 10.1: an idempotency key holds for this long. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/** The type of the events `POST {p}/webhook/{name}/test` sends (docs/api.md 10.7). */
export const TEST_EVENT = 'webhook.test';

const newEventId = (): string => `evt_${randomBytes(16).toString('base64url')}`;

/** What an idempotency key compares: the event's type, organization and data. */
const requestHashOf = (type: string, organizationId: number, data: unknown): string =>
  createHash('sha256').update(JSON.stringify([type, organizationId, data])).digest('hex');

/**
 * Events in (docs/api.md 10.1), for `POST {p}/events`, the CLI's `event send` and the events the
 * service emits itself (`card set-status`): one path. The event (its body sealed) and one
 * delivery per webhook of the organization are committed together before the answer; then this
 * instance's dispatcher is woken. Under an `Idempotency-Key` the unique index (organization,
 * key) decides races on any number of instances: the loser finds the winner's event and answers
 * as it did, or 409 when its request differs.
 */
@Injectable()
export class EventIngest {
  constructor(
    private readonly events: EventsRepository,
    private readonly secrets: SecretBox,
    private readonly dispatcher: DeliveryDispatcher,
  ) {}

  async accept(event: IncomingEvent, idempotencyKey?: string): Promise<AcceptedEvent> {
    const requestHash = requestHashOf(event.type, event.organization, event.data);
    if (idempotencyKey !== undefined) {
      const earlier = await this.events.findByIdempotencyKey(event.organization, idempotencyKey);
      if (earlier !== undefined && !(await this.expired(earlier))) return replay(earlier, requestHash);
    }
    const { id, createdAt, payload } = this.newEvent(event.organization, event.type, event.data);
    const outcome = await this.events
      .insert({ id, organizationId: event.organization, type: event.type, idempotencyKey, requestHash, payload, createdAt })
      .catch((error: unknown) => {
        if (isForeignKeyViolation(error)) throw Errors.notFound();
        throw error;
      });
    if (outcome === 'duplicate') {
      // Another request with this key committed first (a race): answer as it was answered.
      const winner = await this.events.findByIdempotencyKey(event.organization, idempotencyKey!);
      if (winner === undefined) throw Errors.unavailable();
      return replay(winner, requestHash);
    }
    if (outcome.deliveries > 0) this.dispatcher.wake();
    return { id, deliveries: outcome.deliveries };
  }

  /**
   * `POST {p}/webhook/{name}/test` (docs/api.md 10.7): a `webhook.test` event with data
   * `{"webhook": name}`, delivered to that webhook's `url` only, through the same queue,
   * dispatcher and log as every event.
   */
  async test(organizationId: number, actor: Actor, webhookId: number, name: string): Promise<{ id: number; event: { id: string; type: typeof TEST_EVENT } }> {
    const { id, createdAt, payload } = this.newEvent(organizationId, TEST_EVENT, { webhook: name });
    const deliveryId = await this.events.insertForWebhook(
      { id, organizationId, type: TEST_EVENT, idempotencyKey: undefined, requestHash: requestHashOf(TEST_EVENT, organizationId, { webhook: name }), payload, createdAt },
      webhookId,
      { organizationId, actorUserId: actor.userId, action: 'webhook.tested', webhook: name, fields: [] },
    );
    this.dispatcher.wake();
    return { id: deliveryId, event: { id, type: TEST_EVENT } };
  }

  /** A new event's id, its moment of acceptance, and the body every attempt sends, sealed (docs/api.md 10.3, 10.8). */
  private newEvent(organizationId: number, type: string, data: unknown): { id: string; createdAt: Date; payload: SealedSecret } {
    const id = newEventId();
    const createdAt = new Date();
    const body = JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
    return { id, createdAt, payload: this.secrets.seal(body, eventPayloadBinding(organizationId, id)) };
  }

  /** A key older than its window is freed for the new event. */
  private async expired(earlier: KeyedEvent): Promise<boolean> {
    if (Date.now() - earlier.createdAt.getTime() < IDEMPOTENCY_WINDOW_MS) return false;
    await this.events.forgetIdempotencyKey(earlier.id);
    return true;
  }
}

function replay(earlier: KeyedEvent, requestHash: string): AcceptedEvent {
  if (earlier.requestHash !== requestHash) throw Errors.idempotencyConflict();
  return { id: earlier.id, deliveries: earlier.deliveryCount };
}
