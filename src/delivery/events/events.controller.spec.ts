import { afterAll, beforeAll, beforeEach, describe, expect, it, type Mocked, vi } from 'vitest';
import { ControllerContext, controllerSetup, PLATFORM } from '../../../test/support/unit/controller-setup';
import { Errors } from '../../common/domain-error';
import { EventIngest } from './event-ingest.service';
import { EventsController } from './events.controller';

/*
 * The order of checks of `POST {p}/events` (docs/api.md 10.1): the platform key, then the body,
 * the Idempotency-Key, the organizations of the key (403), then ingest (the organization, the
 * idempotency record, the backpressure); and of `POST {p}/events/batch` (10.1.1): the key, the
 * body (every event's shape and keys, then each event's size), the organizations of the key, then
 * ingest. In production the key is checked ahead of the body parser (auth/authenticated-body.ts);
 * here the guard does the same work.
 */

const EVENT = { type: 'user.updated', organization: 2, data: { user: 1 } };
const TYPE_RULE = 'type: must be one of transaction.created, transaction.updated, transaction.completed, card.updated, user.updated';
const KEY_RULE = 'Idempotency-Key: must be 1 to 255 visible ASCII characters';

describe('EventsController', () => {
  let app: ControllerContext;
  let ingest: Mocked<EventIngest>;
  beforeAll(async () => {
    app = await controllerSetup([EventsController]);
    ingest = app.get(EventIngest);
  });
  afterAll(() => app.close());
  beforeEach(() => vi.resetAllMocks());

  const send = async (body: unknown, key = 'key-1') => {
    const { status, body: answer } = await app
      .http()
      .post('/events')
      .set('Idempotency-Key', key)
      .send(body as object);
    return { status, body: answer as unknown };
  };

  it('answers a bad body before a bad Idempotency-Key', async () => {
    expect(await send({ ...EVENT, type: 'card.deleted' }, 'with space')).toEqual({
      status: 400,
      body: { code: 'bad request', message: [TYPE_RULE] },
    });
    expect(ingest.accept).not.toHaveBeenCalled();
  });

  it('answers a bad Idempotency-Key 400 bad request', async () => {
    expect(await send(EVENT, 'with space')).toEqual({ status: 400, body: { code: 'bad request', message: [KEY_RULE] } });
    expect(ingest.accept).not.toHaveBeenCalled();
  });

  it('answers an organization outside the key 403 forbidden, once the body and the key are valid', async () => {
    app.authenticator.platform.mockResolvedValue({ ...PLATFORM, organizations: [1] });
    expect((await send({ ...EVENT, type: 'card.deleted' })).status).toBe(400);
    expect(await send(EVENT)).toEqual({ status: 403, body: { code: 'forbidden' } });
    expect(ingest.accept).not.toHaveBeenCalled();
  });

  it('hands ingest the event with its data as sent and the key, and answers 202 with what ingest returns', async () => {
    ingest.accept.mockResolvedValueOnce({ id: 'evt_x', deliveries: 2 });
    const data = JSON.parse('{"constructor":{"name":"x"},"toString":1,"list":[1,{"b":null}]}');
    expect(await send({ ...EVENT, data })).toEqual({ status: 202, body: { id: 'evt_x', deliveries: 2 } });
    expect(ingest.accept).toHaveBeenCalledWith({ ...EVENT, data }, 'key-1', undefined);
  });

  it("hands ingest the request's trace context (docs/api.md 10.17), and nothing of a malformed one", async () => {
    ingest.accept.mockResolvedValue({ id: 'evt_x', deliveries: 0 });
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await app.http().post('/events').set({ traceparent, tracestate: 'congo=1' }).send(EVENT);
    expect(ingest.accept).toHaveBeenLastCalledWith(EVENT, undefined, {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceState: 'congo=1',
    });
    await app.http().post('/events').set({ traceparent: '00-nonsense', tracestate: 'congo=1' }).send(EVENT);
    expect(ingest.accept).toHaveBeenLastCalledWith(EVENT, undefined, undefined);
  });

  describe('POST /events/batch', () => {
    const sendBatch = async (body: unknown) => {
      const { status, body: answer } = await app
        .http()
        .post('/events/batch')
        .send(body as object);
      return { status, body: answer as unknown };
    };
    const batch = (...organizations: number[]) => ({ events: organizations.map((organization) => ({ ...EVENT, organization })) });

    it('answers no platform key 401 before reading the body', async () => {
      app.authenticator.platform.mockRejectedValue(Errors.unauthorized());
      expect(await sendBatch({ events: [] })).toEqual({ status: 401, body: { code: 'unauthorized' } });
    });

    it('answers a bad event 400 naming it, before the organizations of the key', async () => {
      app.authenticator.platform.mockResolvedValue({ ...PLATFORM, organizations: [1] });
      const body = batch(2, 2);
      body.events[1] = { ...body.events[1], type: 'card.deleted' };
      expect(await sendBatch(body)).toEqual({ status: 400, body: { code: 'bad request', message: [`events[1].${TYPE_RULE}`] } });
      expect(ingest.acceptBatch).not.toHaveBeenCalled();
    });

    it('answers events for organizations outside the key 403 forbidden naming each, once the batch is valid', async () => {
      app.authenticator.platform.mockResolvedValue({ ...PLATFORM, organizations: [1] });
      expect(await sendBatch(batch(1, 2, 1, 3))).toEqual({
        status: 403,
        body: {
          code: 'forbidden',
          message: [
            "events[1].organization: not one of the platform key's organizations",
            "events[3].organization: not one of the platform key's organizations",
          ],
        },
      });
      expect(ingest.acceptBatch).not.toHaveBeenCalled();
    });

    it('hands ingest the events in the order sent, each with its key, and answers 202 with what ingest returns', async () => {
      const answer = {
        events: [
          { id: 'evt_a', deliveries: 1 },
          { id: 'evt_b', deliveries: 0 },
        ],
      };
      ingest.acceptBatch.mockResolvedValueOnce(answer);
      const body = {
        events: [
          { ...EVENT, idempotencyKey: 'k-1' },
          { ...EVENT, organization: 5 },
        ],
      };
      expect(await sendBatch(body)).toEqual({ status: 202, body: answer });
      expect(ingest.acceptBatch).toHaveBeenCalledWith(body.events, undefined);
    });

    it("hands ingest the request's trace context for the whole batch (docs/api.md 10.17), and nothing of a malformed one", async () => {
      ingest.acceptBatch.mockResolvedValue({ events: [{ id: 'evt_a', deliveries: 0 }] });
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const body = { events: [EVENT] };
      await app.http().post('/events/batch').set({ traceparent, tracestate: 'congo=1' }).send(body);
      expect(ingest.acceptBatch).toHaveBeenLastCalledWith(body.events, {
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        traceState: 'congo=1',
      });
      await app.http().post('/events/batch').set({ traceparent: '00-nonsense', tracestate: 'congo=1' }).send(body);
      expect(ingest.acceptBatch).toHaveBeenLastCalledWith(body.events, undefined);
    });
  });
});
