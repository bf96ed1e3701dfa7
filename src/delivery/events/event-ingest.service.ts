import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/domain-error';
import { SecretBox } from '../../crypto/secret-box';
import { Metrics } from '../../metrics/metrics';
import { DispatchSignal } from '../dispatch-signal';
import type { AcceptedEventDto } from './dto/event.dto';
import { EventsRepository, KeyedEvent } from './events.repository';
import type { IncomingEvent } from './incoming-event';
import { newEvent, requestHashOf } from './new-event';
import { PendingLimit } from './pending-limit';

/** docs/api.md 10.1: an idempotency key holds for this long. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/**
 * Events in (docs/api.md 10.1), for `POST {p}/events` and the CLI's `event send` (the events the
 * service emits itself go through the Outbox, a console's test through WebhookTestService). The
 * event (its body sealed) and one delivery per webhook of the organization are committed
 * together before the answer, in ingest's group commit; the deliveries the local dispatcher may
 * take at once are handed to it already claimed. Under an `Idempotency-Key` the unique index
 * (organization, key) decides races on any number of instances: the loser finds the winner's
 * event and answers as it did, or 409 when its request differs.
 */
@Injectable()
export class EventIngest {
  constructor(
    private readonly events: EventsRepository,
    private readonly secrets: SecretBox,
    private readonly dispatch: DispatchSignal,
    private readonly pending: PendingLimit,
    private readonly metrics: Metrics,
  ) {}

  async accept(event: IncomingEvent, idempotencyKey?: string): Promise<AcceptedEventDto> {
    const requestHash = requestHashOf(event.type, event.organization, event.data);
    if (idempotencyKey !== undefined) {
      const earlier = await this.events.findByIdempotencyKey(event.organization, idempotencyKey);
      if (earlier !== undefined && !(await this.expired(earlier))) return replay(earlier, requestHash);
    }
    await this.pending.check(event.organization);
    const { event: written, body } = newEvent(this.secrets, event.organization, event.type, event.data, requestHash);
    const keyed = { ...written, idempotencyKey };
    const handoff = this.dispatch.handoff(keyed.bodyBytes);
    const outcome = await this.events.insert([keyed], handoff);
    if (outcome === 'unknown organization') throw Errors.notFound();
    if (outcome === 'duplicate') {
      // Another request with this key committed first (a race): answer as it was answered.
      const winner = await this.events.findByIdempotencyKey(event.organization, idempotencyKey!);
      if (winner === undefined) throw Errors.unavailable();
      return replay(winner, requestHash);
    }
    const [inserted] = outcome;
    this.pending.added(event.organization, inserted.deliveries);
    this.metrics.eventAccepted(event.type, 'api');
    if (inserted.deliveries > 0) {
      const handed = {
        id: keyed.id,
        organizationId: keyed.organizationId,
        type: keyed.type,
        body: Buffer.from(body),
        bodyBytes: keyed.bodyBytes,
      };
      this.dispatch.accepted(handed, inserted.deliveries, handoff, inserted.handed);
    }
    return { id: keyed.id, deliveries: inserted.deliveries };
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
