/*
 * webhook_health as the rest of the delivery feature's SQL may use it: the scan and the queue's
 * stats (dispatch/), ingest's fan-out (events/), the record's check of which webhooks a success
 * must clear. EndpointHealthRepository owns every statement on the table and what its columns
 * mean (scripts/check-table-owners.mjs); these fragments are what it lends, here at the
 * feature's root because ingest's part may not import the dispatcher's (the dispatcher writes
 * its events through ingest's Outbox).
 */
export const HealthSql = {
  /** Joins the health row `h` of the webhook that a column names (none: healthy, never limited). */
  joinedOn: (webhookIdColumn: string) => `LEFT JOIN webhook_health h ON h.webhook_id = ${webhookIdColumn}`,
  /** Joins only the webhooks that have a health row `h`. */
  joinedWhereKept: (webhookIdColumn: string) => `JOIN webhook_health h ON h.webhook_id = ${webhookIdColumn}`,
  /** When the breaker's cool-down ends (null: closed). */
  breakerOpenUntil: 'h.breaker_open_until',
  breakerClosed: 'h.breaker_open_until IS NULL',
  breakerOpen: 'h.breaker_open_until IS NOT NULL',
  /** The rate limiter's next free slot. */
  rateNextAt: 'h.rate_next_at',
  /** 1 when the webhook that `webhookIdColumn` names has a health row that is not healthy, else 0 (a scalar subquery, not locked). */
  unhealthyOf: (webhookIdColumn: string): string =>
    `(SELECT COUNT(*) FROM webhook_health h WHERE h.webhook_id = ${webhookIdColumn}
     AND (h.failing_since IS NOT NULL OR h.failed_attempts > 0 OR h.breaker_failures > 0 OR h.breaker_open_until IS NOT NULL))`,
} as const;
