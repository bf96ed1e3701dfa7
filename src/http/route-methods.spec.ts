import { describe, expect, it } from 'vitest';
import { RouteMethods } from './route-methods';

function serviceRoutes(): RouteMethods {
  const routes = new RouteMethods();
  routes.add('get', '/api/webhook');
  routes.add('post', '/api/webhook');
  routes.add('delete', '/api/webhook');
  routes.add('get', '/api/webhook/:name');
  routes.add('post', '/api/webhook/:name');
  routes.add('patch', '/api/webhook/:name');
  routes.add('delete', '/api/webhook/:name');
  routes.add('get', '/health');
  return routes;
}

describe('RouteMethods', () => {
  it('lists every method registered for a path, sorted, with HEAD wherever GET is', () => {
    expect(serviceRoutes().allowed('/api/webhook/hook')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'POST']);
  });

  it('allows a trailing slash, as Express does', () => {
    expect(serviceRoutes().allowed('/api/webhook/')).toEqual(['DELETE', 'GET', 'HEAD', 'POST']);
  });

  it('matches literals in their case, as the adapter makes Express do: another case is no route', () => {
    expect(serviceRoutes().allowed('/API/Webhook')).toEqual([]);
  });

  it('is empty for a path no route has', () => {
    expect(serviceRoutes().allowed('/api/webhook/a/b')).toEqual([]);
    expect(serviceRoutes().allowed('/nothing')).toEqual([]);
  });

  it('matches a parameter that does not decode (%ZZ, escapes that are not UTF-8) without throwing', () => {
    expect(serviceRoutes().allowed('/api/webhook/%ZZ')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'POST']);
    expect(serviceRoutes().allowed('/api/webhook/%E0%A4')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH', 'POST']);
  });

  it('does not give HEAD to a path without GET', () => {
    const routes = new RouteMethods();
    routes.add('post', '/api/events');
    expect(routes.allowed('/api/events')).toEqual(['POST']);
  });
});
