import { describe, expect, it } from 'vitest';
import type { AttemptError } from '../delivery/delivery.model';
import { routeOf } from '../logging/request-log.middleware';
import { attemptOutcomeLabel, routeLabel } from './metric-labels';

const failed = (error: AttemptError) => ({ ok: false, error });

describe('attemptOutcomeLabel', () => {
  it('names a success ok', () => {
    expect(attemptOutcomeLabel({ ok: true, error: null })).toBe('ok');
  });

  it.each([
    'timeout',
    'dns unavailable',
    'does not resolve',
    'blocked address',
    'connection failed',
    'tls error',
    'internal error',
  ] as const)('keeps the delivery log error %s as it is', (error) => {
    expect(attemptOutcomeLabel(failed(error))).toBe(error);
  });

  it.each([
    ['http 301', 'http 3xx'],
    ['http 400', 'http 4xx'],
    ['http 410', 'http 4xx'],
    ['http 429', 'http 4xx'],
    ['http 500', 'http 5xx'],
    ['http 503', 'http 5xx'],
    ['http 599', 'http 5xx'],
  ] as const)('collapses %s to its class, %s: one series per class, never per status', (error, label) => {
    expect(attemptOutcomeLabel(failed(error))).toBe(label);
  });
});

describe('routeLabel', () => {
  it('is the route pattern Express matched, never the path', () => {
    expect(routeLabel(routeOf({ route: { path: '/api/webhook/:name' } }))).toBe('/api/webhook/:name');
  });

  it('is unmatched when no route matched', () => {
    expect(routeLabel(routeOf({ route: undefined }))).toBe('unmatched');
  });

  it("is unmatched for Nest's catch-all not-found route", () => {
    expect(routeLabel(routeOf({ route: { path: '*path' } }))).toBe('unmatched');
  });
});
