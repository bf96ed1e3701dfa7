/*
 * The event types, named once for every feature that needs them: webhooks (a URL per event
 * type, the types a webhook takes), delivery (what is accepted and sent), cards (what a status
 * change emits) and the published catalogue (docs/api.md 10.11). Depends on nothing.
 */

/** The event types the internal platform API sends (docs/api.md 10.1); a webhook's per-event URL fields (5). */
export const EVENT_FIELDS = [
  'transaction.created',
  'transaction.updated',
  'transaction.completed',
  'card.updated',
  'user.updated',
] as const;
export type EventField = (typeof EVENT_FIELDS)[number];

/** The events the service sends of its own (docs/api.md 10.7, 10.10), to a webhook's `url`; never accepted from `POST /events`. */
export const TEST_EVENT = 'webhook.test';
export const DISABLED_EVENT = 'webhook.disabled';

/** Every event type a receiver may get: the platform's and the service's own (the catalogue, docs/api.md 10.11). */
export type SentEventType = EventField | typeof TEST_EVENT | typeof DISABLED_EVENT;
export const SENT_EVENT_TYPES: readonly SentEventType[] = [...EVENT_FIELDS, TEST_EVENT, DISABLED_EVENT];

/** A group's wildcard (docs/api.md 10.13): every type of `transaction.`, `card.` or `user.`. */
export const EVENT_WILDCARDS = ['transaction.*', 'card.*', 'user.*'] as const;

/** What a webhook's `events` may list (docs/api.md 10.13): the platform's types and the groups' wildcards. */
export const SUBSCRIBABLE_EVENTS = [...EVENT_FIELDS, ...EVENT_WILDCARDS] as const;
export type EventSubscription = (typeof SUBSCRIBABLE_EVENTS)[number];

/** The wildcard that takes `type` as well as its own name: `card.*` for `card.updated`. */
export const wildcardOf = (type: string): string => `${type.slice(0, type.indexOf('.'))}.*`;
