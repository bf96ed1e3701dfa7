import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { PreparedRoutes, RouteHandler } from './prepared-routes';

const list: RouteHandler = () => undefined;
const one: RouteHandler = () => undefined;
const health: RouteHandler = () => undefined;

const request = (url: string, method = 'GET', headers: IncomingHttpHeaders = {}) => ({ url, method, headers }) as IncomingMessage;

/** The routes of the service, in the order Nest registers them, behind two Express-only ones. */
function serviceRoutes(): PreparedRoutes {
  const routes = new PreparedRoutes();
  routes.add('/docs/openapi.json', undefined);
  routes.add('/docs', undefined);
  routes.add('/health', health);
  routes.add('/api/webhook', list);
  routes.add('/api/webhook/:name', one);
  return routes;
}

describe('PreparedRoutes', () => {
  it('matches a literal route and reports its pattern', () => {
    expect(serviceRoutes().match(request('/api/webhook'))).toEqual({ handler: list, pattern: '/api/webhook', params: {} });
  });

  it('matches a :param route, taking the raw segment as the parameter', () => {
    expect(serviceRoutes().match(request('/api/webhook/hook-01'))).toEqual({ handler: one, pattern: '/api/webhook/:name', params: { name: 'hook-01' } });
  });

  it('compares literals without regard to case, as Express does, and keeps the case of parameters', () => {
    expect(serviceRoutes().match(request('/API/Webhook/Hook'))).toEqual({ handler: one, pattern: '/api/webhook/:name', params: { name: 'Hook' } });
  });

  it('leaves a path no route matches to Express', () => {
    expect(serviceRoutes().match(request('/api/webhooks'))).toBeUndefined();
    expect(serviceRoutes().match(request('/api/webhook/a/b'))).toBeUndefined();
  });

  it('leaves a route registered without a Nest handler to Express', () => {
    expect(serviceRoutes().match(request('/docs'))).toBeUndefined();
  });

  it.each(['HEAD', 'POST', 'PATCH', 'DELETE', 'OPTIONS'])('leaves %s to Express', (method) => {
    expect(serviceRoutes().match(request('/api/webhook', method))).toBeUndefined();
  });

  it.each<[string, IncomingHttpHeaders]>([
    ['a Content-Length', { 'content-length': '2' }],
    ['a chunked body', { 'transfer-encoding': 'chunked' }],
  ])('leaves a GET with %s to Express (its body rules live there)', (_, headers) => {
    expect(serviceRoutes().match(request('/api/webhook', 'GET', headers))).toBeUndefined();
  });

  it('takes a GET with Content-Length: 0', () => {
    expect(serviceRoutes().match(request('/api/webhook', 'GET', { 'content-length': '0' }))?.handler).toBe(list);
  });

  it.each([
    ['a query string', '/api/webhook?x=1'],
    ['an empty query string', '/api/webhook?'],
    ['a percent-escape', '/api/webhook/hook%2D01'],
    ['a trailing slash', '/api/webhook/'],
    ['an empty segment', '/api//webhook'],
    ['a dot segment', '/api/./webhook'],
    ['a dot-dot segment', '/api/webhook/../webhook'],
    ['an absolute-form target', 'http://localhost/api/webhook'],
  ])('leaves a path with %s to Express', (_, url) => {
    expect(serviceRoutes().match(request(url))).toBeUndefined();
  });

  it('tries routes in registration order: an earlier Express-only route wins over a later prepared one', () => {
    const routes = new PreparedRoutes();
    routes.add('/api/webhook/special', undefined);
    routes.add('/api/webhook/:name', one);
    expect(routes.match(request('/api/webhook/special'))).toBeUndefined();
    expect(routes.match(request('/api/webhook/other'))?.handler).toBe(one);
  });

  it('lets an earlier prepared route win over a later one', () => {
    const routes = new PreparedRoutes();
    routes.add('/api/webhook/:name', one);
    routes.add('/api/webhook/special', list);
    expect(routes.match(request('/api/webhook/special'))?.handler).toBe(one);
  });

  it.each(['/files/*path', '/a{/:b}', '/x/:y.json'])('treats a pattern it cannot read (%s) as matching anything: later routes go to Express', (pattern) => {
    const routes = new PreparedRoutes();
    routes.add(pattern, health);
    routes.add('/api/webhook', list);
    expect(routes.match(request('/api/webhook'))).toBeUndefined();
  });

  it('serves the root route', () => {
    const routes = new PreparedRoutes();
    routes.add('/', health);
    expect(routes.match(request('/'))?.handler).toBe(health);
  });
});
