import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/domain-error';
import { SecretBox } from '../../crypto/secret-box';
import { IdentityLookups } from '../../identity/identity-ports';
import { Metrics } from '../../metrics/metrics';
import type { TraceContext } from '../../tracing/trace-context';
import type { EventTrace } from '../event-trace';
import { Tracing } from '../../tracing/tracing';
import { DispatchSignal, Handoff } from '../dispatch-signal';
import type { AcceptedEventBatchDto } from './dto/event-batch.dto';
import type { AcceptedEventDto } from './dto/event.dto';
import { EventsRepository, IdempotencyKeyOf, InsertedEvent, KeyedEvent, NewEvent } from './events.repository';
import { BatchEvent, eachEvent } from './incoming-batch';
import type { IncomingEvent } from './incoming-event';
import { newEvent, SerializedEvent, serializedEvent } from './new-event';
import { PendingLimit } from './pending-limit';

/** docs/api.md 10.1: an idempotency key holds for this long. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;

/**
 * A batch's writes before one gives up: each that finds a key taken (another request committed
 * it meanwhile) is followed by a look-up that answers that event as the winner did.
 */
const BATCH_WRITES = 3;

/**
 * Events in (docs/api.md 10.1, 10.1.1), for `POST {p}/events`, `POST {p}/events/batch` and the
 * CLI's `event send` (the events the service emits itself go through the Outbox, a console's test
 * through WebhookTestService). The events of a request (their bodies sealed) and one delivery per
 * webhook of the organization that takes each are committed together before the answer, in
 * ingest's group commit; the deliveries the local dispatcher may take at once are handed to it
 * already claimed. Under an idempotency key the unique index (organization, key) decides races on
 * any number of instances: the loser finds the winner's event and answers as it did, or 409 when
 * its request differs.
 */
@Injectable()
export class EventIngest {
  constructor(
    private readonly events: EventsRepository,
    private readonly identity: IdentityLookups,
    private readonly secrets: SecretBox,
    private readonly dispatch: DispatchSignal,
    private readonly pending: PendingLimit,
    private readonly metrics: Metrics,
    private readonly tracing: Tracing,
  ) {}

  /** One event; `request`: what its acceptance hangs from in the request's trace (docs/api.md 10.17; undefined: a new trace). */
  async accept(event: IncomingEvent, idempotencyKey?: string, request?: TraceContext): Promise<AcceptedEventDto> {
    const serialized = serializedEvent(event.type, event.organization, event.data);
    const { requestHash } = serialized;
    const earlier = idempotencyKey === undefined ? undefined : await this.events.findByIdempotencyKey(event.organization, idempotencyKey);
    if (earlier !== undefined) {
      if (live(earlier)) return replay(earlier, requestHash);
      await this.events.forgetIdempotencyKeys([earlier.id]);
    }
    await this.pending.check(event.organization);
    const span = this.tracing.acceptanceSpan(request, { 'event.type': event.type, 'organization.id': event.organization });
    const { event: written, body } = newEvent(this.secrets, serialized, span.trace);
    const keyed = { ...written, idempotencyKey };
    const handoff = this.dispatch.handoff(keyed.bodyBytes);
    const outcome = await this.events.insert([keyed], handoff).finally(() => span.end({ 'event.id': keyed.id }));
    if (outcome === 'unknown organization') throw Errors.notFound();
    if (outcome === 'duplicate') {
      // Another request with this key committed first (a race): answer as it was answered.
      const winner = await this.events.findByIdempotencyKey(event.organization, idempotencyKey!);
      if (winner === undefined) throw Errors.unavailable();
      return replay(winner, requestHash);
    }
    this.accepted(keyed, body, outcome[0], handoff);
    return { id: keyed.id, deliveries: outcome[0].deliveries };
  }

  /**
   * A batch (docs/api.md 10.1.1), valid and within the key's organizations: every event checked
   * before anything is written (unknown organizations: 404; keys used before with another event:
   * 409; the organizations its new events would take over the pending limit: 429), then its new
   * events written in one transaction, and each event answered in the order sent: a key seen
   * before as it was first answered, a new event with its id and deliveries.
   */
  async acceptBatch(batch: readonly BatchEvent[], request?: TraceContext): Promise<AcceptedEventBatchDto> {
    const serialized = batch.map(({ type, organization, data }) => serializedEvent(type, organization, data));
    const hashes = serialized.map(({ requestHash }) => requestHash);
    const keys = batch.flatMap(({ organization, idempotencyKey }) =>
      idempotencyKey === undefined ? [] : [{ organizationId: organization, idempotencyKey }],
    );
    const lookUpKeys = async () => (keys.length > 0 ? this.events.findByIdempotencyKeys(keys) : []);
    const [missing, earlier] = await Promise.all([
      this.identity.missingOrganizations([...new Set(batch.map(({ organization }) => organization))]),
      lookUpKeys(),
    ]);
    if (missing.length > 0) {
      throw Errors.notFound(
        ...eachEvent(batch, ({ organization }) => missing.includes(organization) && `organization: no organization ${organization}`),
      );
    }
    let { answers, expired } = replays(batch, hashes, earlier);
    await this.checkPending(batch, answers);
    // The events of one batch share its trace and the span of its acceptance (docs/api.md 10.17).
    const span = this.tracing.acceptanceSpan(request, { 'events.count': batch.length });
    try {
      for (let writes = 1; ; writes++) {
        if (expired.length > 0) await this.events.forgetIdempotencyKeys(expired);
        const written = await this.writeNew(batch, serialized, answers, span.trace);
        if (written !== 'duplicate') return { events: written };
        if (writes === BATCH_WRITES) throw Errors.unavailable();
        ({ answers, expired } = replays(batch, hashes, await lookUpKeys()));
      }
    } finally {
      span.end();
    }
  }

  /** 429 queue full, naming the new events of each organization they would take over its pending limit. */
  private async checkPending(batch: readonly BatchEvent[], answers: readonly (AcceptedEventDto | undefined)[]): Promise<void> {
    const fresh = batch.filter((_, i) => answers[i] === undefined);
    const events = new Map<number, number>();
    for (const { organization } of fresh) events.set(organization, (events.get(organization) ?? 0) + 1);
    const full = await this.pending.overWithBatch(events, (near) =>
      this.events.pendingAddedBy(
        fresh
          .filter(({ organization }) => near.includes(organization))
          .map(({ organization, type }) => ({ organizationId: organization, type })),
      ),
    );
    if (full.length === 0) return;
    throw this.pending.refusal(
      ...eachEvent(
        batch,
        ({ organization }, i) =>
          answers[i] === undefined && full.includes(organization) && `organization: ${organization} would have too many pending deliveries`,
      ),
    );
  }

  /** The batch's answers once its new events are written in one transaction; 'duplicate' when a key was taken meanwhile. */
  private async writeNew(
    batch: readonly BatchEvent[],
    serialized: readonly SerializedEvent[],
    answers: readonly (AcceptedEventDto | undefined)[],
    trace: EventTrace,
  ): Promise<AcceptedEventDto[] | 'duplicate'> {
    const fresh = batch.flatMap((_, i) => (answers[i] === undefined ? [i] : []));
    if (fresh.length === 0) return answers as AcceptedEventDto[];
    const sealed = fresh.map((i) => {
      const { event, body } = newEvent(this.secrets, serialized[i], trace);
      const { idempotencyKey } = batch[i];
      return { event: { ...event, idempotencyKey }, body };
    });
    const handoff = this.dispatch.handoff(sealed.reduce((bytes, { event }) => bytes + event.bodyBytes, 0));
    const outcome = await this.events.insert(
      sealed.map(({ event }) => event),
      handoff,
    );
    // An organization deleted since it was looked up.
    if (outcome === 'unknown organization') throw Errors.notFound();
    if (outcome === 'duplicate') return 'duplicate';
    const written = [...answers];
    sealed.forEach(({ event, body }, n) => {
      this.accepted(event, body, outcome[n], handoff);
      written[fresh[n]] = { id: event.id, deliveries: outcome[n].deliveries };
    });
    return written as AcceptedEventDto[];
  }

  /** An event committed: counted, and its deliveries handed to this instance's dispatcher. */
  private accepted(event: NewEvent, body: string, inserted: InsertedEvent, handoff: Handoff | undefined): void {
    this.pending.added(event.organizationId, inserted.deliveries);
    this.metrics.eventAccepted(event.type, 'api');
    if (inserted.deliveries === 0) return;
    const handed = {
      id: event.id,
      organizationId: event.organizationId,
      type: event.type,
      body: Buffer.from(body),
      bodyBytes: event.bodyBytes,
      trace: event.trace,
    };
    this.dispatch.accepted(handed, inserted.deliveries, handoff, inserted.handed);
  }
}

/**
 * Each event of a batch's answer when its key was used before (undefined: a new event), and the
 * events under expired keys, to be freed before the new events are written. 409 naming each
 * event whose key names another request's event.
 */
function replays(
  batch: readonly BatchEvent[],
  hashes: readonly string[],
  earlier: readonly (KeyedEvent & IdempotencyKeyOf)[],
): { answers: (AcceptedEventDto | undefined)[]; expired: string[] } {
  const found = batch.map(({ organization, idempotencyKey }) =>
    earlier.find((keyed) => keyed.organizationId === organization && keyed.idempotencyKey === idempotencyKey),
  );
  const kept = found.map((keyed) => (keyed !== undefined && live(keyed) ? keyed : undefined));
  const conflicts = eachEvent(
    batch,
    (_, i) => kept[i] !== undefined && kept[i].requestHash !== hashes[i] && 'idempotencyKey: used before with another event',
  );
  if (conflicts.length > 0) throw Errors.idempotencyConflict(...conflicts);
  return {
    answers: kept.map((keyed, i) => keyed && replay(keyed, hashes[i])),
    expired: found.flatMap((keyed, i) => (keyed !== undefined && kept[i] === undefined ? [keyed.id] : [])),
  };
}

/** A key still within its window; an older one is freed for the new event. */
const live = ({ createdAt }: KeyedEvent): boolean => Date.now() - createdAt.getTime() < IDEMPOTENCY_WINDOW_MS;

function replay(earlier: KeyedEvent, requestHash: string): AcceptedEventDto {
  if (earlier.requestHash !== requestHash) throw Errors.idempotencyConflict();
  return { id: earlier.id, deliveries: earlier.deliveryCount };
}
