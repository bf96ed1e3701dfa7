import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import type { Transaction } from '../../database/unit-of-work';
import { EndpointHealthRepository } from './endpoint-health.repository';
import { EndpointHealth, HealthEvent, healthAfterAll, HEALTHY, HealthPolicy } from './scheduling/endpoint-health';

const DAY_MS = 24 * 3600 * 1000;

/** A recorded attempt, as its endpoint's health reads it. */
export interface RecordedAttempt extends HealthEvent {
  readonly webhookId: number;
}

/** A webhook's health after a batch of its attempts, and whether it must now be disabled. */
export interface HealthVerdict {
  readonly health: EndpointHealth;
  readonly disable: boolean;
}

/**
 * Endpoint health (docs/api.md 10.10), shared by every instance through webhook_health: the
 * attempts of each recorded batch move their webhooks' breakers and failure runs in the
 * batch's own transaction (a webhook whose attempts all succeeded is cleared, and written only
 * if it was not healthy); the verdict says whether a webhook has failed for
 * DELIVERY_DISABLE_AFTER_DAYS, which WebhookDisablingService then disables.
 */
@Injectable()
export class EndpointHealthService {
  private readonly policy: HealthPolicy;

  constructor(
    private readonly health: EndpointHealthRepository,
    config: AppConfig,
  ) {
    const { breakerThreshold, breakerCooldownMs, disableAfterDays } = config.delivery;
    this.policy = { breakerThreshold, cooldownMs: breakerCooldownMs, disableAfterMs: disableAfterDays * DAY_MS };
  }

  /**
   * Applies recorded attempts to their webhooks' health, in the recording transaction: each
   * webhook's verdict. `unhealthy`: the webhooks whose health row is not healthy (read with the
   * claims being ended), the only ones a success has to clear.
   */
  async afterAttempts(
    tx: Transaction,
    attempts: readonly RecordedAttempt[],
    unhealthy: ReadonlySet<number>,
  ): Promise<Map<number, HealthVerdict>> {
    const byWebhook = new Map<number, RecordedAttempt[]>();
    for (const attempt of attempts) {
      // An attempt that could not be made (ours) says nothing about the endpoint.
      if (attempt.signal === 'ours') continue;
      byWebhook.set(attempt.webhookId, [...(byWebhook.get(attempt.webhookId) ?? []), attempt]);
    }
    const verdicts = new Map<number, HealthVerdict>();
    const succeeded = [...byWebhook].filter(([, mine]) => mine.every(({ signal }) => signal === 'success')).map(([webhookId]) => webhookId);
    await this.health.clear(
      tx,
      succeeded.filter((webhookId) => unhealthy.has(webhookId)),
    );
    for (const webhookId of succeeded) verdicts.set(webhookId, { health: HEALTHY, disable: false });
    const failing = [...byWebhook.keys()].filter((webhookId) => !verdicts.has(webhookId));
    for (const [webhookId, current] of await this.health.lock(tx, failing)) {
      const verdict = healthAfterAll(current, byWebhook.get(webhookId)!, this.policy);
      await this.health.write(tx, webhookId, verdict.health);
      verdicts.set(webhookId, verdict);
    }
    return verdicts;
  }
}
