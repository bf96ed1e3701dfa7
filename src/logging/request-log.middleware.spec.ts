import { describe, expect, it } from 'vitest';
import { loggedPath } from './request-log.middleware';

const TOKEN = 'Zk3q_9vPq2rT7x0bW4mNcYdL1sA8eHuJgK5oRtVwXy0';

describe('loggedPath', () => {
  it.each([
    ['the webhook list', '/api/webhook'],
    ['a webhook by its name, 64 characters long', `/api/webhook/${'a'.repeat(64)}`],
    ['a delivery by its id', '/api/webhook/payments/deliveries/12345678901234567890'],
    ['card provisioning', '/api/card/provisioning'],
  ])('keeps %s as it is', (_, path) => {
    expect(loggedPath(path)).toBe(path);
  });

  it.each([
    ['in place of a route', `/api/${TOKEN}`, '/api/[redacted]'],
    ['in place of a webhook name', `/api/webhook/${TOKEN}/deliveries`, '/api/webhook/[redacted]/deliveries'],
    ['percent-encoded', `/api/webhook/${encodeURIComponent(`${TOKEN}=`)}`, '/api/webhook/[redacted]'],
  ])('redacts a token %s', (_, path, logged) => {
    expect(loggedPath(path)).toBe(logged);
  });
});
