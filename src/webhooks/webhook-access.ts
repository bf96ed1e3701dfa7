import type { Transaction } from '../database/unit-of-work';
import type { WebhookDto } from './dto/webhook-responses.dto';

/** A webhook as the delivery feature addresses it: its id, and whether it is disabled. */
export interface WebhookIdentity {
  readonly id: number;
  readonly disabled: boolean;
}

/** A webhook's row as a share lock found it: 'gone' when there is no such webhook. */
export type HeldWebhook = 'enabled' | 'disabled' | 'gone';

/**
 * What the other features read of webhooks and do to them, shaped by what they need: the
 * delivery feature's log, its console actions (a test, a replay, a recovery) and its disabling
 * and enabling, and monitoring's gauge. WebhooksModule exports this abstract class as the DI
 * token and binds it to WebhookAccessService, so no other feature reaches the webhooks'
 * repository or service, and what they rely on is this page (docs/architecture.md). The SQL of
 * delivery's hot paths joins the webhooks through WebhookSql instead, in its own statements.
 */
export abstract class WebhookAccess {
  /** The organization's webhook named `name`, or undefined when it has none. */
  abstract findIdentity(organizationId: number, name: string): Promise<WebhookIdentity | undefined>;

  /**
   * The organization's webhook named `name`, for a console action that sends to it (a test, a
   * replay): 404 when there is none, 409 when it is disabled (nothing is sent to it until it is
   * enabled). The action checks again in its transaction, with lockShared.
   */
  abstract findEnabled(organizationId: number, name: string): Promise<WebhookIdentity>;

  /**
   * The webhook's row locked in share mode, for a write of the delivery feature that must not
   * race a disabling (a test event, a replay, a recovery): the disabling is wholly before it
   * ('disabled') or after it (and fails what it left pending).
   */
  abstract lockShared(tx: Transaction, webhookId: number): Promise<HeldWebhook>;

  /**
   * Disables a webhook (docs/api.md 10.10) in the caller's transaction, under its source lock:
   * its organization and name, or undefined when it is gone or already disabled.
   */
  abstract disable(tx: Transaction, webhookId: number, at: Date): Promise<{ organizationId: number; name: string } | undefined>;

  /**
   * Enables a webhook in the caller's transaction, under its source lock: its id and whether it
   * was disabled, or undefined when the organization has no such webhook.
   */
  abstract enable(tx: Transaction, organizationId: number, name: string): Promise<{ id: number; wasDisabled: boolean } | undefined>;

  /** The webhook as `GET {p}/webhook/{name}` answers it (docs/api.md 5.3); 404 when there is none. */
  abstract read(organizationId: number, name: string): Promise<WebhookDto>;

  /** Webhooks disabled across every organization (the operator's metrics, docs/api.md 9). */
  abstract countDisabled(): Promise<number>;
}
