import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { version } from '../../../package.json';
import { AppConfig, DeliveryConfig } from '../../config/app-config';
import { SecretBox } from '../../crypto/secret-box';
import { PINO } from '../../logging/pino.provider';
import { signingSecretBinding } from '../../webhooks/webhook.model';
import { eventPayloadBinding } from '../delivery.model';
import { AttemptRecord, ClaimedDelivery, DeliveryQueue } from './delivery-queue';
import { RetryPolicy } from './retry-policy';
import { webhookSignature } from './webhook-signature';
import { WebhookSender } from './webhook-sender';

/** docs/api.md 10.5: a claim outlives the attempt's own deadline by this much. */
const LEASE_MARGIN_MS = 30_000;
const WARN_EVERY_MS = 10_000;
const RECORD_RETRY_MS = 500;
const USER_AGENT = `platform-api/${version}`;

/**
 * Every instance's share of the delivery work (docs/api.md 10.6): up to DELIVERY_CONCURRENCY
 * attempts at a time, claimed from the queue when an ingest wakes it or every
 * DELIVERY_POLL_MS; each attempt signs the stored body afresh, sends it, and records the
 * outcome with the retry policy's next step. At shutdown it stops claiming, lets the attempts
 * in flight finish (each is bounded by DELIVERY_TIMEOUT_MS) and gives back any claim still held.
 */
@Injectable()
export class DeliveryDispatcher implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly config: DeliveryConfig;
  private readonly policy: RetryPolicy;
  private readonly leaseMs: number;
  private readonly inFlight = new Map<number, { delivery: ClaimedDelivery; done: Promise<void> }>();
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private lastWarning = 0;

  constructor(
    private readonly queue: DeliveryQueue,
    private readonly sender: WebhookSender,
    private readonly secrets: SecretBox,
    config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {
    this.config = config.delivery;
    this.policy = new RetryPolicy(this.config.retrySchedule);
    this.leaseMs = this.config.timeoutMs + LEASE_MARGIN_MS;
  }

  onApplicationBootstrap(): void {
    if (this.config.concurrency === 0) return;
    this.running = true;
    this.loop = this.run();
  }

  /** A delivery may be due now (an event was just accepted): look at once instead of at the next poll. */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.wake();
    await this.loop;
    const unfinished = [...this.inFlight.values()];
    const deadline = new Promise((resolve) => setTimeout(resolve, this.config.timeoutMs + 1000).unref());
    await Promise.race([Promise.all(unfinished.map(({ done }) => done)), deadline]);
    const held = [...this.inFlight.values()].map(({ delivery }) => delivery);
    if (held.length > 0) await this.queue.release(held, new Date()).catch((error: unknown) => this.warn(error, 'could not release claims'));
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.config.concurrency - this.inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await this.queue.claim(free, new Date(), this.leaseMs);
        } catch (error) {
          this.warn(error, 'could not claim deliveries');
        }
        for (const delivery of claimed) this.start(delivery);
      }
      // A full batch may have left more due: claim again as soon as an attempt ends.
      if (claimed.length > 0 && claimed.length === free) continue;
      await this.sleep(this.config.pollMs);
    }
  }

  private start(delivery: ClaimedDelivery): void {
    const done = this.attempt(delivery)
      .catch((error: unknown) => this.logger.error({ err: error, delivery: delivery.id }, 'delivery attempt failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(delivery.id);
        this.wake();
      });
    this.inFlight.set(delivery.id, { delivery, done });
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const { webhook, organizationId } = delivery;
    if (webhook === undefined) return this.queue.cancel(delivery);
    const at = new Date();
    // The newest secret first; a rotated-out one beside it until it expires (docs/api.md 10.3, 10.7).
    const secrets = [this.secrets.open(webhook.secret, signingSecretBinding(organizationId, webhook.name))];
    if (webhook.previous !== undefined && webhook.previous.expiresAt > at) {
      secrets.push(this.secrets.open(webhook.previous.secret, signingSecretBinding(organizationId, webhook.name, 'previous')));
    }
    const body = this.secrets.open(delivery.payload, eventPayloadBinding(organizationId, delivery.eventId));
    const outcome = await this.sender.send(webhook.url, {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': delivery.eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': webhookSignature(secrets, delivery.eventId, at, body),
    }, body);
    const next = this.policy.after(delivery.attempts - delivery.retryFrom + 1, outcome, new Date());
    await this.record(delivery, { ...next, at, durationMs: outcome.durationMs, status: outcome.status, error: outcome.error });
  }

  /**
   * Records an attempt's outcome; while the database cannot be written (it is cut off), tries
   * again until the claim's lease would run out, so that an attempt made just before an outage
   * is not made again after it.
   */
  private async record(delivery: ClaimedDelivery, outcome: AttemptRecord): Promise<void> {
    const giveUpAt = delivery.claimedAt + this.leaseMs - RECORD_RETRY_MS;
    for (;;) {
      try {
        await this.queue.complete(delivery, outcome);
        return;
      } catch (error) {
        if (!this.running || Date.now() >= giveUpAt) throw error;
        this.warn(error, 'could not record a delivery attempt; trying again');
        await new Promise((resolve) => setTimeout(resolve, RECORD_RETRY_MS));
      }
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken || !this.running) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(finish, ms);
      this.wakeUp = finish;
      function finish() {
        clearTimeout(timer);
        resolve();
      }
    }).then(() => {
      this.wakeUp = undefined;
      this.woken = false;
    });
  }

  private warn(error: unknown, message: string): void {
    if (Date.now() - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = Date.now();
    this.logger.warn({ err: { message: (error as Error)?.message } }, message);
  }
}
