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

/** One change to record: what, on which webhook, which members (names only, never values); who made it is the actor of the work (AuditTrail). */
export interface AuditChange {
  readonly organizationId: number;
  readonly action: AuditAction;
  readonly webhook: string;
  readonly fields: readonly string[];
}
