import { TEST_EVENT } from '../event-types/event-types';

/**
 * The head of an ordered webhook's order (docs/api.md 10.18): its oldest pending delivery but its
 * test pings (which the order does not hold), by acceptance: the event's time, then the
 * delivery's id (a batch's in the order sent; a retried or recovered earlier delivery before the
 * later ones). One seek of ix_deliveries_webhook_state_created, whatever the backlog. Parameter:
 * the webhook. The claim takes it (DeliveryQueue); the log shows the deliveries behind it waiting.
 */
export const HEAD_OF_ORDER = `SELECT d.id AS id FROM deliveries d WHERE d.webhook_id = ? AND d.state = 'pending' AND d.event_type <> '${TEST_EVENT}'
    ORDER BY d.created_at, d.id LIMIT 1`;
