import { randomBytes } from 'node:crypto';

/** The per-event URLs a webhook may have, by their dotted names (SPEC 5, seed "Events"). */
export const EVENT_FIELDS = [
  'transaction.created',
  'transaction.updated',
  'transaction.completed',
  'card.updated',
  'user.updated',
] as const;
export type EventField = (typeof EVENT_FIELDS)[number];
export type UrlField = 'url' | EventField;

/** The groups of the JSON shape and their members, in the order answers list them. */
export const EVENT_GROUPS = {
  transaction: ['created', 'updated', 'completed'],
  card: ['updated'],
  user: ['updated'],
} as const;
export type EventGroup = keyof typeof EVENT_GROUPS;

export const WEBHOOK_NAME_PATTERN = /^[a-z0-9-]{1,64}$/;

/** A URL that passed the static rules: its normalized href, and its host when that is a name. */
export interface CheckedUrl {
  readonly href: string;
  readonly hostname?: string;
}

/** What a create (or legacy create-or-update) stores. */
export interface WebhookDraft {
  readonly url: CheckedUrl;
  readonly events: Partial<Record<EventField, CheckedUrl>>;
}

/** A JSON Merge Patch flattened to fields: absent keeps, null clears. */
export interface WebhookPatch {
  readonly url?: CheckedUrl;
  readonly events: Partial<Record<EventField, CheckedUrl | null>>;
}

/** A stored webhook's URLs (hrefs); unset events are absent. */
export interface StoredWebhook {
  readonly url: string;
  readonly events: Partial<Record<EventField, string>>;
}

/** The JSON of a webhook: `url` and only the groups and events that are set. */
export interface WebhookBody {
  url: string;
  transaction?: { created?: string; updated?: string; completed?: string };
  card?: { updated?: string };
  user?: { updated?: string };
}

export function toWebhookBody({ url, events }: StoredWebhook): WebhookBody {
  const body: Record<string, unknown> = { url };
  for (const [group, members] of Object.entries(EVENT_GROUPS)) {
    const set: Record<string, string> = {};
    for (const member of members) {
      const href = events[`${group}.${member}` as EventField];
      if (href !== undefined) set[member] = href;
    }
    if (Object.keys(set).length > 0) body[group] = set;
  }
  return body as unknown as WebhookBody;
}

/**
 * `GET /webhook` as JSON text with the keys in sorted order. Built as text because a JS object
 * would move integer-like names ("7", "10") ahead of the others, whatever the insertion order.
 */
export function webhookListJson(webhooks: readonly (StoredWebhook & { name: string })[]): string {
  const sorted = [...webhooks].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return `{${sorted.map((w) => `${JSON.stringify(w.name)}:${JSON.stringify(toWebhookBody(w))}`).join(',')}}`;
}

/** A signing secret: `whsec_` and the base64 of 32 random bytes (SPEC 5). */
export const newSigningSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
