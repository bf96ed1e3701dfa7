import { actorOf } from '../../common/actor';
import { afterAll, beforeAll, beforeEach, describe, expect, it, type Mocked, vi } from 'vitest';
import type { Test } from 'supertest';
import { ControllerContext, controllerSetup, OWNER } from '../../../test/support/unit/controller-setup';
import { Errors } from '../../common/domain-error';
import { DeliveryRecoveryService } from './delivery-recovery.service';
import { WebhookRecoveryController } from './webhook-recovery.controller';

/*
 * The order of checks of `POST …/recover` (docs/api.md 10.14): after authentication and the session
 * limit, the replay limit of the webhook, then the name, the body, the Idempotency-Key, then the
 * service (which judges the window against the clock and the retention).
 */

const SINCE = '2026-03-01T10:00:00Z';

describe('WebhookRecoveryController', () => {
  let app: ControllerContext;
  let recovery: Mocked<DeliveryRecoveryService>;
  beforeAll(async () => {
    app = await controllerSetup([WebhookRecoveryController]);
    recovery = app.get(DeliveryRecoveryService);
  });
  afterAll(() => app.close());
  beforeEach(() => vi.resetAllMocks());

  const recover = async (name: string, body: unknown, key?: string) => {
    const sent: Test = app
      .http()
      .post(`/webhook/${name}/recover`)
      .send(body as object);
    const { status, body: answer } = await (key === undefined ? sent : sent.set('Idempotency-Key', key));
    return { status, body: answer as unknown };
  };

  it('counts the recovery against the replay limit of the webhook, before the name', async () => {
    app.limits.countWebhookAction.mockRejectedValueOnce(Errors.rateLimited(60));
    expect(await recover('Bad_Name', {})).toEqual({ status: 429, body: { code: 'rate limited' } });
    expect(app.limits.countWebhookAction).toHaveBeenCalledWith(OWNER.organizationId, 'Bad_Name', 'retry');
  });

  it('answers an invalid name before a bad body and a bad key', async () => {
    expect(await recover('Bad_Name', { until: 'later' }, 'with space')).toEqual({
      status: 400,
      body: { code: 'invalid name', message: ['name: must match ^[a-z0-9-]{1,64}$'] },
    });
    expect(recovery.recover).not.toHaveBeenCalled();
  });

  it('answers a bad body before a bad key', async () => {
    expect(await recover('w', { since: SINCE, state: 'failed' }, 'with space')).toEqual({
      status: 400,
      body: { code: 'bad request', message: ['state: unknown member'] },
    });
    expect(recovery.recover).not.toHaveBeenCalled();
  });

  it('answers a bad Idempotency-Key 400 bad request', async () => {
    expect(await recover('w', { since: SINCE }, 'with space')).toEqual({
      status: 400,
      body: { code: 'bad request', message: ['Idempotency-Key: must be 1 to 255 visible ASCII characters'] },
    });
    expect(recovery.recover).not.toHaveBeenCalled();
  });

  it('hands the service the name, the window asked for and the key, and answers 202', async () => {
    expect((await recover('w', { since: SINCE }, 'key-1')).status).toBe(202);
    expect(recovery.recover).toHaveBeenCalledWith(OWNER.organizationId, actorOf(OWNER), 'w', { since: new Date(SINCE) }, 'key-1');
  });
});
