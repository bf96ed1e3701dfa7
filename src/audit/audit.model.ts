/** The actions the audit trail records (docs/api.md 10.9). */
export type AuditAction = 'webhook.created' | 'webhook.updated' | 'webhook.deleted' | 'webhook.secret_rotated' | 'delivery.retried' | 'webhook.tested';

/** One change to record: who, what, on which webhook, which members (names only, never values). */
export interface AuditChange {
  readonly organizationId: number;
  readonly actorUserId: number;
  readonly action: AuditAction;
  readonly webhook: string;
  readonly fields: readonly string[];
}

/** Who acts, as the webhook and delivery services pass it down to the transaction of the change. */
export interface Actor {
  readonly userId: number;
}
