import type { Response } from 'supertest';
import { expect } from 'vitest';

/** Small limits, so that a few requests reach them. */
export const PER_SESSION = 3;
export const PER_ORGANIZATION = 5;
export const WINDOW_SECONDS = 60;
export const RATE_ENV = {
  RATE_LIMIT_PER_SESSION: String(PER_SESSION),
  RATE_LIMIT_PER_ORGANIZATION: String(PER_ORGANIZATION),
  RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
};

/** 429 `{"code":"rate limited"}`, never cached, with a Retry-After of whole seconds within the window. */
export function expectRateLimited(res: Response, windowSeconds: number): void {
  expect({ status: res.status, body: res.body as unknown, cacheControl: res.headers['cache-control'] }).toEqual({
    status: 429,
    body: { code: 'rate limited' },
    cacheControl: 'no-store',
  });
  expect(res.headers['content-type']).toMatch(/^application\/json\b/);
  const retryAfter = res.headers['retry-after'] as string | undefined;
  expect(retryAfter).toMatch(/^[1-9]\d*$/);
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSeconds);
}

/** Small limits around authentication (ClientLimits): failures per client address, requests per wallet token. */
export const AUTH_FAILURES_PER_ADDRESS = 4;
export const PER_WALLET_TOKEN = 3;
export const CLIENT_ENV = {
  RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS: String(AUTH_FAILURES_PER_ADDRESS),
  RATE_LIMIT_PER_WALLET_TOKEN: String(PER_WALLET_TOKEN),
  RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
};
