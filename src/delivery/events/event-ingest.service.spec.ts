import { describe, expect, it, vi } from 'vitest';
import { rejectionOf } from '../../../test/support/unit/domain-errors';
import { loadAppConfig } from '../../config/app-config';
import type { SecretBox } from '../../crypto/secret-box';
import type { IdentityLookups } from '../../identity/identity-ports';
import { Metrics } from '../../metrics/metrics';
import { Tracing } from '../../tracing/tracing';
import type { DispatchSignal } from '../dispatch-signal';
import { EventIngest } from './event-ingest.service';
import type { EventsRepository, IdempotencyKeyOf, KeyedEvent, NewEvent } from './events.repository';
import type { BatchEvent } from './incoming-batch';
import { serializedEvent } from './new-event';
import { PendingLimit } from './pending-limit';

/*
 * A batch's checks (docs/api.md 10.1.1), in their order, over mocked storage: unknown
 * organizations (404), keys used before with another event (409), the pending limit with the
 * batch's deliveries counted (429), all before anything is written; then the new events in one
 * write, each event answered in the order sent, a repeat as first answered.
 */

const MAX_PENDING = 10;

const event = (organization: number, idempotencyKey?: string, data: Record<string, unknown> = {}): BatchEvent => ({
  type: 'user.updated',
  organization,
  data,
  ...(idempotencyKey !== undefined && { idempotencyKey }),
});

/** An event stored earlier under `event`'s key, with `deliveries` deliveries. */
const earlierOf = (
  { type, organization, data, idempotencyKey }: BatchEvent,
  id: string,
  deliveries = 1,
): KeyedEvent & IdempotencyKeyOf => ({
  id,
  requestHash: serializedEvent(type, organization, data).requestHash,
  deliveryCount: deliveries,
  createdAt: new Date(),
  organizationId: organization,
  idempotencyKey: idempotencyKey!,
});

function ingestWith({ missing = [] as number[], earlier = [] as (KeyedEvent & IdempotencyKeyOf)[], pending = 0, adding = 1 } = {}) {
  const events = {
    findByIdempotencyKeys: vi.fn(async () => earlier),
    forgetIdempotencyKeys: vi.fn(async () => undefined),
    countPending: vi.fn(async (organizations: readonly number[]) => new Map(organizations.map((id) => [id, pending]))),
    pendingAddedBy: vi.fn(async (added: readonly { organizationId: number }[]) => {
      const counts = new Map<number, number>();
      for (const { organizationId } of added) counts.set(organizationId, (counts.get(organizationId) ?? 0) + adding);
      return counts;
    }),
    insert: vi.fn(async (written: readonly NewEvent[]) => written.map(() => ({ deliveries: adding, handed: [] }))),
  };
  const identity = { missingOrganizations: vi.fn(async () => missing) };
  const secrets = { seal: () => ({ keyId: 'k1', ciphertext: 'sealed' }) };
  const dispatch = { handoff: vi.fn(() => undefined), accepted: vi.fn() };
  const config = loadAppConfig({ DELIVERY_PENDING_PER_ORG_MAX: String(MAX_PENDING), SECRET_KEY: Buffer.alloc(32).toString('base64') });
  const metrics = new Metrics();
  const limit = new PendingLimit(events as unknown as EventsRepository, metrics, config);
  const sut = new EventIngest(
    events as unknown as EventsRepository,
    identity as unknown as IdentityLookups,
    secrets as unknown as SecretBox,
    dispatch as unknown as DispatchSignal,
    limit,
    metrics,
    new Tracing(config),
  );
  return { sut, events };
}

describe('EventIngest.acceptBatch', () => {
  const batch = [event(1, 'k-1', { v: 1 }), event(2), event(9)];
  const conflicting = earlierOf({ ...batch[0], data: { v: 2 } }, 'evt_old');

  it('answers unknown organizations 404 naming their events, before a key used with another event', async () => {
    const { sut, events } = ingestWith({ missing: [9], earlier: [conflicting], pending: MAX_PENDING });
    expect(await rejectionOf(sut.acceptBatch(batch))).toEqual({
      status: 404,
      body: { code: 'not found', message: ['events[2].organization: no organization 9'] },
    });
    expect(events.insert).not.toHaveBeenCalled();
  });

  it('answers keys used before with another event 409 naming them, before the pending limit', async () => {
    const { sut, events } = ingestWith({ earlier: [conflicting], pending: MAX_PENDING });
    expect(await rejectionOf(sut.acceptBatch(batch))).toEqual({
      status: 409,
      body: { code: 'idempotency conflict', message: ['events[0].idempotencyKey: used before with another event'] },
    });
    expect(events.insert).not.toHaveBeenCalled();
  });

  it('counts the deliveries the batch would add: 429 queue full naming the events of each organization it would take over', async () => {
    const { sut, events } = ingestWith({ pending: MAX_PENDING - 2, adding: 1 });
    expect(await sut.acceptBatch([event(1), event(2), event(1)])).toMatchObject({
      events: [{ deliveries: 1 }, { deliveries: 1 }, { deliveries: 1 }],
    });
    const full = ingestWith({ pending: MAX_PENDING - 2, adding: 1 });
    expect(await rejectionOf(full.sut.acceptBatch([event(1), event(2), event(1), event(1)]))).toEqual({
      status: 429,
      body: {
        code: 'queue full',
        message: [
          'events[0].organization: 1 would have too many pending deliveries',
          'events[2].organization: 1 would have too many pending deliveries',
          'events[3].organization: 1 would have too many pending deliveries',
        ],
      },
      retryAfter: 30,
    });
    expect(full.events.insert).not.toHaveBeenCalled();
    expect(events.insert).toHaveBeenCalledOnce();
  });

  it('answers a batch of repeats as first answered even when the organization is full, creating nothing', async () => {
    const { sut, events } = ingestWith({ earlier: [earlierOf(batch[0], 'evt_old', 3)], pending: MAX_PENDING });
    expect(await sut.acceptBatch([batch[0]])).toEqual({ events: [{ id: 'evt_old', deliveries: 3 }] });
    expect(events.insert).not.toHaveBeenCalled();
  });

  it('writes only the new events, in the order sent, and answers each in its place', async () => {
    const { sut, events } = ingestWith({ earlier: [earlierOf(batch[0], 'evt_old', 3)] });
    const answer = await sut.acceptBatch([event(2, 'k-2'), batch[0], event(3)]);
    expect(answer.events.map(({ id }) => id)).toEqual([expect.stringMatching(/^evt_/), 'evt_old', expect.stringMatching(/^evt_/)]);
    const [[written]] = events.insert.mock.calls;
    expect(written.map(({ id, organizationId, idempotencyKey }) => ({ id, organizationId, idempotencyKey }))).toEqual([
      { id: answer.events[0].id, organizationId: 2, idempotencyKey: 'k-2' },
      { id: answer.events[2].id, organizationId: 3, idempotencyKey: undefined },
    ]);
  });

  it('takes a key older than 24 h as new, freeing it only when the new events are written (not on a 429)', async () => {
    const expired = { ...earlierOf({ ...batch[0], data: { other: true } }, 'evt_old'), createdAt: new Date(Date.now() - 25 * 3600 * 1000) };
    const full = ingestWith({ earlier: [expired], pending: MAX_PENDING });
    expect((await rejectionOf(full.sut.acceptBatch([batch[0]]))).status).toBe(429);
    expect(full.events.forgetIdempotencyKeys).not.toHaveBeenCalled();
    const { sut, events } = ingestWith({ earlier: [expired] });
    expect((await sut.acceptBatch([batch[0]])).events[0].id).not.toBe('evt_old');
    expect(events.forgetIdempotencyKeys).toHaveBeenCalledExactlyOnceWith(['evt_old']);
    expect(events.forgetIdempotencyKeys.mock.invocationCallOrder[0]).toBeLessThan(events.insert.mock.invocationCallOrder[0]);
  });

  it('answers an event whose key another request took meanwhile (a race) as that request did, and writes the others again', async () => {
    const { sut, events } = ingestWith();
    const sent = [event(2, 'k-2'), event(3)];
    events.insert.mockResolvedValueOnce('duplicate' as never);
    events.findByIdempotencyKeys.mockResolvedValueOnce([]).mockResolvedValueOnce([earlierOf(sent[0], 'evt_winner', 2)]);
    const answer = await sut.acceptBatch(sent);
    expect(answer.events[0]).toEqual({ id: 'evt_winner', deliveries: 2 });
    expect(events.insert).toHaveBeenCalledTimes(2);
    expect(events.insert.mock.calls[1][0].map(({ organizationId }) => organizationId)).toEqual([3]);
    expect(answer.events[1].id).toBe(events.insert.mock.calls[1][0][0].id);
  });
});
