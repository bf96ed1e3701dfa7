/** The actions the audit trail records on webhooks (docs/api.md 10.9, 10.10, 10.14). */
const WEBHOOK_ACTIONS = [
  'webhook.created',
  'webhook.updated',
  'webhook.deleted',
  'webhook.secret_rotated',
  'delivery.retried',
  'webhook.tested',
  'webhook.disabled',
  'webhook.enabled',
  'delivery.recovered',
] as const;
export type WebhookAuditAction = (typeof WEBHOOK_ACTIONS)[number];

/** Every action the audit trail records: the webhooks', and a card added to a wallet (6.1). */
export const AUDIT_ACTIONS = [...WEBHOOK_ACTIONS, 'card.provisioned'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * One change to record: what, on which webhook or card, which members (names only, never values;
 * for a card, the wallet it was added to); who made it is the actor of the work (AuditTrail).
 */
export type AuditChange =
  | {
      readonly organizationId: number;
      readonly action: WebhookAuditAction;
      readonly webhook: string;
      readonly fields: readonly string[];
    }
  | {
      readonly organizationId: number;
      readonly action: 'card.provisioned';
      readonly card: number;
      readonly fields: readonly ['apple' | 'google'];
    };
