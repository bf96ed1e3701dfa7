/** The actions the audit trail records (docs/api.md 10.9, 10.10, 10.14). */
export const AUDIT_ACTIONS = [
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
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One change to record: who (null: the service itself, or an operator through the CLI), what, on which webhook, which members (names only, never values). */
export interface AuditChange {
  readonly organizationId: number;
  readonly actorUserId: number | null;
  readonly action: AuditAction;
  readonly webhook: string;
  readonly fields: readonly string[];
}

/** Who acts, as the webhook and delivery services pass it down to the transaction of the change. */
export interface Actor {
  readonly userId: number;
}
