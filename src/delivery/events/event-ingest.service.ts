import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../../audit/audit.model';
import { Errors } from '../../common/domain-error';
import { SealedSecret, SecretBox } from '../../crypto/secret-box';
import { Database } from '../../database/database';
import type { SqlExecutor } from '../../database/sql-executor';
import { Metrics } from '../../metrics/metrics';
import { eventPayloadBinding } from '../delivery.model';
import { SentEventType, TEST_EVENT } from '../../event-types/event-types';
import { DispatchSignal } from '../dispatch-signal';
import type { AcceptedEventDto } from './dto/event.dto';
import { EventsRepository, KeyedEvent, NewEvent } from './events.repository';
import type { IncomingEvent } from './incoming-event';
import { PendingLimit } from './pending-limit';

/** An event the service emits with a change of its own (docs/api.md 10.12). */
export interface EmittedEvent {
  /** One the event catalogue describes (docs/api.md 10.11). */
  readonly type: SentEventType;
  readonly organization: number;
  readonly data: Record<string, unknown>;
  /** Only to the organization's enabled webhooks but this one (webhook.disabled). */
  readonly onlyEnabledExcept?: number;
}

/** docs/api.md 10.1: an idempotency key holds for this long. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

const newEventId = (): string => `evt_${randomBytes(16).toString('base64url')}`;

/** What an idempotency key compares: the event's type, organization and data. */
const requestHashOf = (type: string, organizationId: number, data: unknown): string =>
  createHash('sha256')
    .update(JSON.stringify([type, organizationId, data]))
    .digest('hex');

/**
 * Events in (docs/api.md 10.1), for `POST {p}/events`, the CLI's `event send`, the console's
 * test events and the events the service emits with its own changes (10.12): one path. The
 * event (its body sealed) and one delivery per webhook of the organization are committed
 * together before the answer; the deliveries the local dispatcher may take at once are handed
 * to it already claimed. Under an `Idempotency-Key` the unique index (organization, key)
 * decides races on any number of instances: the loser finds the winner's event and answers as
 * it did, or 409 when its request differs.
 */
@Injectable()
export class EventIngest {
  constructor(
    private readonly events: EventsRepository,
    private readonly secrets: SecretBox,
    private readonly dispatch: DispatchSignal,
    private readonly pending: PendingLimit,
    private readonly db: Database,
    private readonly metrics: Metrics,
  ) {}

  async accept(event: IncomingEvent, idempotencyKey?: string): Promise<AcceptedEventDto> {
    const requestHash = requestHashOf(event.type, event.organization, event.data);
    if (idempotencyKey !== undefined) {
      const earlier = await this.events.findByIdempotencyKey(event.organization, idempotencyKey);
      if (earlier !== undefined && !(await this.expired(earlier))) return replay(earlier, requestHash);
    }
    await this.pending.check(event.organization);
    const { event: written, body } = this.newEvent(event.organization, event.type, event.data, requestHash);
    const newEvent = { ...written, idempotencyKey };
    const handoff = this.dispatch.handoff(newEvent.bodyBytes);
    const outcome = await this.events.insert(newEvent, { handoff });
    if (outcome === 'unknown organization') throw Errors.notFound();
    if (outcome === 'duplicate') {
      // Another request with this key committed first (a race): answer as it was answered.
      const winner = await this.events.findByIdempotencyKey(event.organization, idempotencyKey!);
      if (winner === undefined) throw Errors.unavailable();
      return replay(winner, requestHash);
    }
    this.pending.added(event.organization, outcome.deliveries);
    this.metrics.eventAccepted(event.type, 'api');
    if (outcome.deliveries > 0) {
      const handed = {
        id: newEvent.id,
        organizationId: newEvent.organizationId,
        type: newEvent.type,
        body: Buffer.from(body),
        bodyBytes: newEvent.bodyBytes,
      };
      this.dispatch.accepted(handed, outcome.deliveries, handoff, outcome.handed);
    }
    return { id: newEvent.id, deliveries: outcome.deliveries };
  }

  /**
   * docs/api.md 10.12: runs `change` in a transaction and writes the event it returns (if any)
   * in the same one, so that either both exist or neither does; then wakes this instance's
   * dispatcher. What `change` returned, or undefined when it emitted nothing.
   */
  async emitWith(change: (tx: SqlExecutor) => Promise<EmittedEvent | undefined>): Promise<AcceptedEventDto | undefined> {
    const emitted = await this.db.transaction(async (tx) => {
      const event = await change(tx);
      if (event === undefined) return undefined;
      const { event: newEvent } = this.newEvent(event.organization, event.type, event.data);
      const { deliveries } = await this.events.insertIn(tx, newEvent, { onlyEnabledExcept: event.onlyEnabledExcept });
      return { type: event.type, accepted: { id: newEvent.id, deliveries } };
    });
    if (emitted === undefined) return undefined;
    this.metrics.eventAccepted(emitted.type, 'service');
    if (emitted.accepted.deliveries > 0) this.dispatch.wake();
    return emitted.accepted;
  }

  /**
   * `POST {p}/webhook/{name}/test` (docs/api.md 10.7): a `webhook.test` event with data
   * `{"webhook": name}`, delivered to that webhook's `url` only, through the same queue,
   * dispatcher and log as every event. 409 when the webhook is disabled (also when a disabling
   * commits first), 404 when it is gone.
   */
  async test(
    organizationId: number,
    actor: Actor,
    webhookId: number,
    name: string,
  ): Promise<{ id: number; event: { id: string; type: typeof TEST_EVENT } }> {
    const { event } = this.newEvent(organizationId, TEST_EVENT, { webhook: name });
    const deliveryId = await this.events.insertForWebhook(event, webhookId, {
      organizationId,
      actorUserId: actor.userId,
      action: 'webhook.tested',
      webhook: name,
      fields: [],
    });
    if (deliveryId === 'disabled') throw Errors.disabled();
    if (deliveryId === 'gone') throw Errors.notFound();
    this.metrics.eventAccepted(TEST_EVENT, 'console');
    this.dispatch.wake();
    return { id: deliveryId, event: { id: event.id, type: TEST_EVENT } };
  }

  /** A new event: its id, its moment of acceptance, and the body every attempt sends, as written (sealed) and in clear (docs/api.md 10.3, 10.8). */
  private newEvent(
    organizationId: number,
    type: string,
    data: unknown,
    requestHash = requestHashOf(type, organizationId, data),
  ): { event: NewEvent; body: string } {
    const id = newEventId();
    const createdAt = new Date();
    const body = JSON.stringify({ type, timestamp: createdAt.toISOString(), data });
    const payload: SealedSecret = this.secrets.seal(body, eventPayloadBinding(organizationId, id));
    const event = {
      id,
      organizationId,
      type,
      idempotencyKey: undefined,
      requestHash,
      payload,
      bodyBytes: Buffer.byteLength(body),
      createdAt,
    };
    return { event, body };
  }

  /** A key older than its window is freed for the new event. */
  private async expired(earlier: KeyedEvent): Promise<boolean> {
    if (Date.now() - earlier.createdAt.getTime() < IDEMPOTENCY_WINDOW_MS) return false;
    await this.events.forgetIdempotencyKey(earlier.id);
    return true;
  }
}

function replay(earlier: KeyedEvent, requestHash: string): AcceptedEventDto {
  if (earlier.requestHash !== requestHash) throw Errors.idempotencyConflict();
  return { id: earlier.id, deliveries: earlier.deliveryCount };
}
