import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage } from '@nestjs/throttler';
import { Errors } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import type { RateLimits } from '../config/rate-limit-config';
import type { RateLimitStore } from './rate-limit-store';

const seconds = (ms: number): number => Math.max(Math.ceil(ms / 1000), 1);

/** docs/api.md 6.1: at most 10 wallet payload requests a minute per user, whatever the window of the other limits. */
const PUSHES_PER_USER = 10;
const PUSH_WINDOW_MS = 60_000;

/**
 * The limits the AuthGuard applies around authentication, in the same counters as the webhook
 * limits (memory or Redis, one fixed window of RATE_LIMIT_WINDOW_SECONDS):
 *
 * - failed authentications per client address (`req.ip`: the peer, or the client that
 *   X-Forwarded-For names when the peer is a TRUSTED_PROXIES entry). Only failures count, so a
 *   busy backend with valid credentials (the admin console's) is never limited by its address;
 *   past the limit, every request from the address answers 429 before any credential is looked
 *   up, until the window's block ends;
 * - requests per bearer token, after authentication: per wallet token (card provisioning) and
 *   per platform key (event ingest);
 * - and, beside the session and organization limits, test events and replays per webhook, and a
 *   user's requests for a wallet's payload (card push provisioning).
 */
@Injectable()
export class ClientLimits {
  private readonly limits: RateLimits;

  constructor(
    @InjectThrottlerStorage() private readonly store: RateLimitStore,
    config: AppConfig,
  ) {
    this.limits = config.rateLimits;
  }

  /** 429 while `address` is blocked for failed authentications (counts nothing). */
  async refuseBlockedAddress(address: string): Promise<void> {
    const left = await this.store.blockLeftMs(this.addressKey(address));
    if (left > 0) throw Errors.rateLimited(seconds(left));
  }

  /** Counts a failed authentication from `address`; the one past the limit answers 429 itself. */
  async countAuthFailure(address: string): Promise<void> {
    await this.count(this.addressKey(address), this.limits.authFailuresPerAddress);
  }

  /** Counts a request made with a bearer token (its hash); past its kind's limit, 429. */
  async countBearerToken(kind: 'wallet-extension' | 'platform', tokenKey: string): Promise<void> {
    const limit = kind === 'platform' ? this.limits.perPlatformKey : this.limits.perWalletToken;
    await this.count(`${this.limits.keyPrefix}:${kind}:${tokenKey}`, limit);
  }

  /**
   * Counts a test event or a replay of a webhook (docs/api.md 10.10): each has a limit per
   * webhook of its own, so that no session fills the queue with them; past it, 429.
   */
  async countWebhookAction(organizationId: number, webhook: string, action: 'test' | 'retry'): Promise<void> {
    await this.count(`${this.limits.keyPrefix}:webhook-${action}:${organizationId}:${webhook}`, this.limits.actionsPerWebhook);
  }

  /** Counts a request for a wallet's payload by `userId` (docs/api.md 6.1), from any of their tokens; past 10 a minute, 429. */
  async countPush(userId: number): Promise<void> {
    await this.count(`${this.limits.keyPrefix}:card-push:${userId}`, PUSHES_PER_USER, PUSH_WINDOW_MS);
  }

  private addressKey(address: string): string {
    return `${this.limits.keyPrefix}:auth-failures:${address}`;
  }

  private async count(key: string, limit: number, windowMs = this.limits.windowMs): Promise<void> {
    const record = await this.store.increment(key, windowMs, limit, windowMs, key);
    if (record.isBlocked) throw Errors.rateLimited(Math.max(record.timeToBlockExpire, 1));
  }
}
