import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ControllerContext, controllerSetup, OWNER, PLATFORM, WALLET } from '../../test/support/unit/controller-setup';
import { allControllers, Route, routesOf } from '../../test/support/unit/controllers';
import { Errors } from '../common/domain-error';

/*
 * Who may call each route (docs/api.md 4, 6.1, 10.1, 10.7, 9), through the real global guard on every
 * controller, with the Authenticator mocked to refuse everyone: the credentials each route asks
 * for, and for which roles, and which routes count against the console's session limit. A route
 * added without a row here fails the first test.
 */

type Policy = 'owner or admin, by session' | 'the platform key' | 'a wallet extension' | 'anyone';

const POLICIES: Record<string, Policy> = {
  'GET /webhook': 'owner or admin, by session',
  'POST /webhook': 'owner or admin, by session',
  'DELETE /webhook': 'owner or admin, by session',
  'GET /webhook/:name': 'owner or admin, by session',
  'POST /webhook/:name': 'owner or admin, by session',
  'PATCH /webhook/:name': 'owner or admin, by session',
  'DELETE /webhook/:name': 'owner or admin, by session',
  'POST /webhook/:name/secret/rotate': 'owner or admin, by session',
  'GET /webhook/:name/deliveries': 'owner or admin, by session',
  'GET /webhook/:name/deliveries/:id': 'owner or admin, by session',
  'POST /webhook/:name/deliveries/:id/retry': 'owner or admin, by session',
  'POST /webhook/:name/test': 'owner or admin, by session',
  'POST /webhook/:name/enable': 'owner or admin, by session',
  'POST /webhook/:name/recover': 'owner or admin, by session',
  'GET /audit': 'owner or admin, by session',
  'POST /events': 'the platform key',
  'POST /events/batch': 'the platform key',
  'GET /card/provisioning': 'a wallet extension',
  'GET /card/provisioning/entries': 'a wallet extension',
  'POST /card/:id/provisioning/apple': 'a wallet extension',
  'POST /card/:id/provisioning/google': 'a wallet extension',
  'GET /health': 'anyone',
};

const keyOf = ({ method, path }: Route) => `${method} ${path}`;

describe('the auth policy of every route', () => {
  let app: ControllerContext;
  let routes: Route[];
  beforeAll(async () => {
    const controllers = await allControllers();
    routes = routesOf(controllers);
    app = await controllerSetup(controllers);
  });
  afterAll(() => app.close());
  beforeEach(() => {
    vi.resetAllMocks();
    for (const authenticate of Object.values(app.authenticator)) authenticate.mockRejectedValue(Errors.unauthorized());
  });

  /** The route called with a valid name and id and no body, as a client without credentials would. */
  const call = (key: string) => {
    const [method, path] = key.split(' ');
    const url = path.replace(':name', 'w').replace(':id', '1');
    return app.http()[method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete'](url);
  };

  it('states a policy for every route, and every route it states exists', () => {
    expect(routes.map(keyOf).sort()).toEqual(Object.keys(POLICIES).sort());
  });

  it.each(Object.entries(POLICIES).filter(([, policy]) => policy === 'owner or admin, by session'))(
    '%s is for an owner or an admin, by the session cookie',
    async (key) => {
      expect((await call(key)).status).toBe(401);
      expect(app.authenticator.session).toHaveBeenCalledWith(expect.any(Object), ['owner', 'admin']);
      expect(app.authenticator.platform).not.toHaveBeenCalled();
      expect(app.authenticator.walletExtension).not.toHaveBeenCalled();
    },
  );

  it.each(Object.entries(POLICIES).filter(([, policy]) => policy === 'the platform key'))('%s is for the platform key', async (key) => {
    expect((await call(key)).status).toBe(401);
    expect(app.authenticator.platform).toHaveBeenCalled();
    expect(app.authenticator.session).not.toHaveBeenCalled();
  });

  it.each(Object.entries(POLICIES).filter(([, policy]) => policy === 'a wallet extension'))('%s is for a wallet extension', async (key) => {
    expect((await call(key)).status).toBe(401);
    expect(app.authenticator.walletExtension).toHaveBeenCalled();
    expect(app.authenticator.session).not.toHaveBeenCalled();
  });

  it.each(Object.entries(POLICIES).filter(([, policy]) => policy === 'anyone'))('%s is for anyone, no credentials asked', async (key) => {
    expect((await call(key)).status).not.toBe(401);
    for (const authenticate of Object.values(app.authenticator)) expect(authenticate).not.toHaveBeenCalled();
  });

  it.each(Object.entries(POLICIES).map(([key, policy]) => [key, policy === 'owner or admin, by session']))(
    '%s counts against the session limit (the console routes): %s',
    async (key, limited) => {
      app.authenticator.session.mockResolvedValue(OWNER);
      app.authenticator.platform.mockResolvedValue(PLATFORM);
      app.authenticator.walletExtension.mockResolvedValue(WALLET);
      await call(key);
      expect(app.throttle.increment.mock.calls.length > 0).toBe(limited);
    },
  );
});
