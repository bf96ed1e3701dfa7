import { afterAll, beforeAll, beforeEach, describe, expect, it, type Mocked, vi } from 'vitest';
import { ControllerContext, controllerSetup, PLATFORM } from '../../../test/support/unit/controller-setup';
import { EventIngest } from './event-ingest.service';
import { EventsController } from './events.controller';

/*
 * The order of checks of `POST {p}/events` (docs/api.md 10.1): the platform key, then the body,
 * the Idempotency-Key, the organizations of the key (403), then ingest (the organization, the
 * idempotency record, the backpressure). In production the key is checked ahead of the body
 * parser (auth/authenticated-body.ts); here the guard does the same work.
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
    expect(ingest.accept).toHaveBeenCalledWith({ ...EVENT, data }, 'key-1');
  });
});
