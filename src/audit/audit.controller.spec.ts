import { afterAll, beforeAll, beforeEach, describe, expect, it, type Mocked, vi } from 'vitest';
import { ControllerContext, controllerSetup, OWNER } from '../../test/support/unit/controller-setup';
import { AuditController } from './audit.controller';
import { AuditService } from './audit.service';

/* `GET {p}/audit` (docs/api.md 10.9): after authentication and the session limit, the query, then the service. */

describe('AuditController', () => {
  let app: ControllerContext;
  let audit: Mocked<AuditService>;
  beforeAll(async () => {
    app = await controllerSetup([AuditController]);
    audit = app.get(AuditService);
  });
  afterAll(() => app.close());
  beforeEach(() => vi.resetAllMocks());

  it('answers a bad query 400 bad request naming each parameter, before the service', async () => {
    const res = await app.http().get('/audit?limit=0&limit=2&cursor=a');
    expect({ status: res.status, body: res.body as unknown }).toEqual({
      status: 400,
      body: { code: 'bad request', message: ['limit: must be given once'] },
    });
    expect(audit.page).not.toHaveBeenCalled();
  });

  it('hands the service the page asked for, parameters it does not read dropped', async () => {
    expect((await app.http().get('/audit?limit=10&cursor=c&state=lost')).status).toBe(200);
    expect(audit.page).toHaveBeenCalledWith(OWNER.organizationId, { limit: 10, cursor: 'c' });
  });
});
