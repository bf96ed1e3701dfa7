import type { SecretBinding } from '../crypto/secret-box';
import type { EventField } from '../event-types/event-types';

/** The event types the platform API sends (docs/api.md 10.1); the per-event URL fields of a webhook. */
export type EventType = EventField;

/** docs/api.md 10.5. */
export const DELIVERY_STATES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Why an attempt failed, as the delivery log names it (docs/api.md 10.7, 10.10). */
export type AttemptError =
  | 'timeout'
  | 'dns unavailable'
  | 'does not resolve'
  | 'blocked address'
  | 'connection failed'
  | 'tls error'
  | 'internal error'
  | `http ${number}`;

/** Event ids as the API shows them: `evt_` and 128 random bits. */
export const EVENT_ID_PATTERN = /^evt_[A-Za-z0-9_-]{22}$/;

/** An event's sealed body belongs to its row: the event id and its organization. */
export const eventPayloadBinding = (organizationId: number, eventId: string): SecretBinding => ({
  table: 'events',
  organizationId,
  row: eventId,
});
