import { actorOf } from '../../common/actor';
import { afterAll, beforeAll, beforeEach, describe, expect, it, type Mocked, vi } from 'vitest';
import type { Test } from 'supertest';
import { ControllerContext, controllerSetup, OWNER } from '../../../test/support/unit/controller-setup';
import { Errors } from '../../common/domain-error';
import { WebhookDisablingService } from '../dispatch/webhook-disabling.service';
import { DeliveryReplayService } from './delivery-replay.service';
import { WebhookTestService } from './webhook-test.service';
import { DeliveryLogService } from './delivery-log.service';
import { WebhookDeliveriesController } from './webhook-deliveries.controller';

/*
 * The order of checks of the delivery log's routes (docs/api.md 10.7, 10.10): after authentication
 * and the session limit, replays and tests count against their limit per webhook, then the name
 * (400 invalid name), then the query (400 bad request) or the id (404), then the service.
 */

const INVALID_NAME = { status: 400, body: { code: 'invalid name', message: ['name: must match ^[a-z0-9-]{1,64}$'] } };
const NOT_FOUND = { status: 404, body: { code: 'not found' } };
const LIMIT_RULE = 'limit: must be a whole number from 1 to 100';
const STATE_RULE = 'state: must be one of pending, succeeded, failed, cancelled';

describe('WebhookDeliveriesController', () => {
  let app: ControllerContext;
  let log: Mocked<DeliveryLogService>;
  let replays: Mocked<DeliveryReplayService>;
  let tests: Mocked<WebhookTestService>;
  let disabling: Mocked<WebhookDisablingService>;
  beforeAll(async () => {
    app = await controllerSetup([WebhookDeliveriesController]);
    log = app.get(DeliveryLogService);
    replays = app.get(DeliveryReplayService);
    tests = app.get(WebhookTestService);
    disabling = app.get(WebhookDisablingService);
  });
  afterAll(() => app.close());
  beforeEach(() => vi.resetAllMocks());

  const answer = async (sent: Test) => {
    const { status, body } = await sent;
    return { status, body: body as unknown };
  };
  const untouched = () => {
    for (const method of [...Object.values(log), ...Object.values(replays), ...Object.values(tests), ...Object.values(disabling)])
      expect(method).not.toHaveBeenCalled();
  };

  describe('GET …/deliveries: the name, then the query', () => {
    it('answers an invalid name before a bad query', async () => {
      expect(await answer(app.http().get('/webhook/Bad_Name/deliveries?limit=0&state=lost'))).toEqual(INVALID_NAME);
      untouched();
    });

    it('answers every problem of the query in one 400 bad request, before the service looks for the webhook', async () => {
      expect(await answer(app.http().get('/webhook/w/deliveries?limit=0&state=lost'))).toEqual({
        status: 400,
        body: { code: 'bad request', message: [LIMIT_RULE, STATE_RULE] },
      });
      untouched();
    });

    it('hands the service the name and the query read', async () => {
      expect((await app.http().get('/webhook/w/deliveries?limit=007&state=failed&foo=1')).status).toBe(200);
      expect(log.page).toHaveBeenCalledWith(OWNER.organizationId, 'w', { limit: 7, state: 'failed' });
    });
  });

  describe('GET …/deliveries/{id}: the name, then the id', () => {
    it('answers an invalid name before a bad id', async () => {
      expect(await answer(app.http().get('/webhook/Bad_Name/deliveries/abc'))).toEqual(INVALID_NAME);
      untouched();
    });

    it('answers an id that is no positive integer 404 not found, as an unknown one', async () => {
      expect(await answer(app.http().get('/webhook/w/deliveries/01'))).toEqual(NOT_FOUND);
      untouched();
    });

    it('hands the service the name and the id', async () => {
      expect((await app.http().get('/webhook/w/deliveries/42')).status).toBe(200);
      expect(log.detail).toHaveBeenCalledWith(OWNER.organizationId, 'w', 42);
    });
  });

  describe('POST …/deliveries/{id}/retry: the replay limit, the name, the id', () => {
    it('counts the replay against the webhook as named, and answers its 429 before the name', async () => {
      app.limits.countWebhookAction.mockRejectedValueOnce(Errors.rateLimited(60));
      expect(await answer(app.http().post('/webhook/Bad_Name/deliveries/0/retry'))).toEqual({
        status: 429,
        body: { code: 'rate limited' },
      });
      expect(app.limits.countWebhookAction).toHaveBeenCalledWith(OWNER.organizationId, 'Bad_Name', 'retry');
      untouched();
    });

    it('answers an invalid name before a bad id', async () => {
      expect(await answer(app.http().post('/webhook/Bad_Name/deliveries/0/retry'))).toEqual(INVALID_NAME);
      untouched();
    });

    it('answers a bad id 404 not found', async () => {
      expect(await answer(app.http().post('/webhook/w/deliveries/0/retry'))).toEqual(NOT_FOUND);
      untouched();
    });

    it('replays the delivery and answers 202', async () => {
      expect((await app.http().post('/webhook/w/deliveries/42/retry')).status).toBe(202);
      expect(replays.replay).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w', 42);
    });
  });

  describe('POST …/test: the test limit, then the name', () => {
    it('counts the test against the webhook, and answers its 429 before the name', async () => {
      app.limits.countWebhookAction.mockRejectedValueOnce(Errors.rateLimited(60));
      expect((await app.http().post('/webhook/Bad_Name/test')).status).toBe(429);
      expect(app.limits.countWebhookAction).toHaveBeenCalledWith(OWNER.organizationId, 'Bad_Name', 'test');
      untouched();
    });

    it('answers an invalid name 400', async () => {
      expect(await answer(app.http().post('/webhook/Bad_Name/test'))).toEqual(INVALID_NAME);
      untouched();
    });

    it('sends the test event and answers 202', async () => {
      expect((await app.http().post('/webhook/w/test')).status).toBe(202);
      expect(tests.send).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w');
    });
  });

  describe('POST …/enable: the name', () => {
    it('answers an invalid name 400, counting nothing against a limit of the webhook', async () => {
      expect(await answer(app.http().post('/webhook/Bad_Name/enable'))).toEqual(INVALID_NAME);
      expect(app.limits.countWebhookAction).not.toHaveBeenCalled();
      untouched();
    });

    it('enables the webhook and answers 200', async () => {
      expect((await app.http().post('/webhook/w/enable')).status).toBe(200);
      expect(disabling.enable).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w');
    });
  });
});
