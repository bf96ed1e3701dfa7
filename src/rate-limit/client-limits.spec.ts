import { afterEach, describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import type { AppConfig } from '../config/app-config';
import { ClientLimits } from './client-limits';
import { MemoryThrottlerStorage } from './memory-throttler.storage';

// The limits around authentication are proven through the AuthGuard (auth/auth.guard.spec.ts);
// here, the limits of the console's actions on one webhook (docs/api.md 10.10).

const LIMITS = {
  keyPrefix: 'test',
  windowMs: 60_000,
  authFailuresPerAddress: 3,
  perWalletToken: 2,
  perPlatformKey: 2,
  actionsPerWebhook: 2,
};
const RATE_LIMITED = { status: 429, body: { code: 'rate limited' }, retryAfter: 60 };

describe('ClientLimits.countWebhookAction (test events and replays per webhook)', () => {
  let storage: MemoryThrottlerStorage | undefined;
  afterEach(() => storage?.onApplicationShutdown());
  const limits = () => new ClientLimits((storage = new MemoryThrottlerStorage()), { rateLimits: LIMITS } as unknown as AppConfig);

  it('takes RATE_LIMIT_ACTIONS_PER_WEBHOOK of an action, then answers 429 rate limited with Retry-After', async () => {
    const l = limits();
    for (let i = 0; i < LIMITS.actionsPerWebhook; i++) await expect(l.countWebhookAction(1, 'hook', 'test')).resolves.toBeUndefined();
    expect(await rejectionOf(l.countWebhookAction(1, 'hook', 'test'))).toEqual(RATE_LIMITED);
  });

  it('counts tests and replays apart', async () => {
    const l = limits();
    for (let i = 0; i < LIMITS.actionsPerWebhook; i++) await l.countWebhookAction(1, 'hook', 'test');
    await expect(l.countWebhookAction(1, 'hook', 'retry')).resolves.toBeUndefined();
  });

  it('counts each webhook apart, and a webhook of the same name in another organization too', async () => {
    const l = limits();
    for (let i = 0; i < LIMITS.actionsPerWebhook; i++) await l.countWebhookAction(1, 'hook', 'test');
    await expect(l.countWebhookAction(1, 'other', 'test')).resolves.toBeUndefined();
    await expect(l.countWebhookAction(2, 'hook', 'test')).resolves.toBeUndefined();
  });
});

describe("ClientLimits.countPush (a user's requests for a wallet's payload, docs/api.md 6.1)", () => {
  let storage: MemoryThrottlerStorage | undefined;
  afterEach(() => storage?.onApplicationShutdown());
  /** A window of the other limits unlike the push limit's minute. */
  const limits = () =>
    new ClientLimits((storage = new MemoryThrottlerStorage()), { rateLimits: { ...LIMITS, windowMs: 5_000 } } as unknown as AppConfig);

  it('takes 10 a minute whatever RATE_LIMIT_WINDOW_SECONDS says, then answers 429 rate limited with Retry-After', async () => {
    const l = limits();
    for (let i = 0; i < 10; i++) await expect(l.countPush(7)).resolves.toBeUndefined();
    expect(await rejectionOf(l.countPush(7))).toEqual(RATE_LIMITED);
  });

  it('counts each user apart', async () => {
    const l = limits();
    for (let i = 0; i < 10; i++) await l.countPush(7);
    await expect(l.countPush(8)).resolves.toBeUndefined();
  });
});
