import { Errors } from '../../common/domain-error';
import type { WebhookIdentity, WebhooksRepository } from '../../webhooks/webhooks.repository';

/**
 * The organization's webhook named `name`, for a console action that sends to it (a replay, a
 * test): 404 when there is none, 409 when it is disabled (nothing is sent to it until it is
 * enabled). Checked again in the action's transaction, under a share lock of its row.
 */
export async function enabledWebhook(webhooks: WebhooksRepository, organizationId: number, name: string): Promise<WebhookIdentity> {
  const webhook = await webhooks.findIdentity(organizationId, name);
  if (webhook === undefined) throw Errors.notFound();
  if (webhook.disabled) throw Errors.disabled();
  return webhook;
}
