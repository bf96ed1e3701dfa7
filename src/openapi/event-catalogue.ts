import { CARD_STATUSES } from '../cards/entities/card.entity';
import { WEBHOOK_NAME_PATTERN } from '../webhooks/webhook.model';
import { DISABLED_EVENT, SentEventType, TEST_EVENT } from '../event-types/event-types';

/** A JSON Schema of draft 2020-12, the dialect of OpenAPI 3.1. */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** What a receiver can know of one event type before it arrives (docs/api.md 10.11). */
export interface CatalogueEntry {
  /** When the service sends it. */
  readonly summary: string;
  /** The schema of the body's `data`. */
  readonly data: JsonSchema;
  /** The `data` of the example body. */
  readonly example: Readonly<Record<string, unknown>>;
}

/** The platform's own JSON: whatever object `POST {p}/events` received, delivered as it came (docs/api.md 10.1). */
const platformData: JsonSchema = {
  type: 'object',
  description:
    "The platform's own JSON object, delivered exactly as the platform handed it in (POST /events); its members are the platform's to define.",
};

const webhookData = (description: string): JsonSchema => ({
  type: 'object',
  required: ['webhook'],
  additionalProperties: false,
  properties: { webhook: { type: 'string', pattern: WEBHOOK_NAME_PATTERN.source, description } },
});

/**
 * docs/api.md 10.1, 10.8: `card set-status` sends `{card, status}`; the platform may send any
 * object of its own (the contract takes any object for every type, `{"card": "x"}` too). Either
 * shape, so that every body the service sends validates (docs/api.md 10.11), and the service's
 * own is described exactly.
 */
const cardData: JsonSchema = {
  anyOf: [
    {
      title: 'From card set-status',
      type: 'object',
      required: ['card', 'status'],
      additionalProperties: false,
      properties: {
        card: { type: 'integer', minimum: 1, description: 'The card id' },
        status: { enum: CARD_STATUSES, description: 'The status the card has now' },
      },
    },
    { ...platformData, title: 'From the platform (POST /events)' },
  ],
};

/**
 * The event catalogue (docs/api.md 10.11): one entry per event type the service sends, keyed
 * by the types EVENT_FIELDS, TEST_EVENT and DISABLED_EVENT already name, so that a type without
 * an entry (or an entry without a type) does not compile. The OpenAPI document's `webhooks`
 * are built from it (openapi/openapi-document.ts).
 */
export const EVENT_CATALOGUE: Readonly<Record<SentEventType, CatalogueEntry>> = {
  'transaction.created': {
    summary: 'A transaction was created (sent by the platform)',
    data: platformData,
    example: { id: 'tx_1200', amount: 1200, currency: 'EUR' },
  },
  'transaction.updated': {
    summary: 'A transaction changed (sent by the platform)',
    data: platformData,
    example: { id: 'tx_1200', amount: 1250, currency: 'EUR' },
  },
  'transaction.completed': {
    summary: 'A transaction completed (sent by the platform)',
    data: platformData,
    example: { id: 'tx_1200', status: 'completed' },
  },
  'card.updated': {
    summary: "A card's status changed (card set-status, or the platform)",
    data: cardData,
    example: { card: 7, status: 'frozen' },
  },
  'user.updated': { summary: 'A user changed (sent by the platform)', data: platformData, example: { user: 1 } },
  [TEST_EVENT]: {
    summary: 'A test, asked for from the console (POST {p}/webhook/{name}/test)',
    data: webhookData('The webhook tested'),
    example: { webhook: 'payments' },
  },
  [DISABLED_EVENT]: {
    summary: "Another of the organization's webhooks was disabled: its attempts have failed for days",
    data: webhookData('The webhook disabled'),
    example: { webhook: 'payments' },
  },
};

/** The catalogued types, platform's first, in the order of the catalogue. */
export const CATALOGUED_EVENT_TYPES = Object.keys(EVENT_CATALOGUE) as SentEventType[];

/** The moment of the example bodies. */
const EXAMPLE_TIMESTAMP = '2026-01-15T09:30:00.000Z';

/** docs/api.md 10.3: the body of every attempt is `{type, timestamp, data}` and nothing else. */
export const eventBodySchema = (type: SentEventType): JsonSchema => ({
  type: 'object',
  required: ['type', 'timestamp', 'data'],
  additionalProperties: false,
  properties: {
    type: { const: type },
    timestamp: {
      type: 'string',
      format: 'date-time',
      description: 'When the service accepted the event (ISO 8601, UTC); the same on every attempt',
    },
    data: EVENT_CATALOGUE[type].data,
  },
});

export const exampleEventBody = (type: SentEventType) => ({ type, timestamp: EXAMPLE_TIMESTAMP, data: EVENT_CATALOGUE[type].example });
