import { Injectable } from '@nestjs/common';
import type { Transaction } from '../database/unit-of-work';

/** Work done in the transaction that deletes a webhook, before its row goes. */
export type WebhookRemovalHook = (tx: Transaction, webhookId: number) => Promise<void>;

/**
 * What other features do when a webhook is deleted, inside the deleting transaction: the
 * delivery feature cancels the webhook's open deliveries (docs/api.md 10.2) without the webhooks
 * feature knowing its tables. The features that depend on webhooks register here at start.
 */
@Injectable()
export class WebhookRemovals {
  private readonly hooks: WebhookRemovalHook[] = [];

  onRemove(hook: WebhookRemovalHook): void {
    this.hooks.push(hook);
  }

  async run(tx: Transaction, webhookId: number): Promise<void> {
    for (const hook of this.hooks) await hook(tx, webhookId);
  }
}
