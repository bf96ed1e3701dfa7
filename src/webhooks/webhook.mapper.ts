import { EVENT_URL_COLUMNS } from './entities/webhook.entity';
import {
  CheckedUrl,
  EVENT_FIELDS,
  EVENT_GROUPS,
  EventField,
  StoredWebhook,
  UrlField,
  WebhookBody,
  WebhookDraft,
  WebhookPatch,
} from './webhook.model';

/*
 * Every conversion between the shapes of a webhook, in the order a request meets them:
 * body → fields (for the URL rules) → draft or patch → columns (the repository's) → stored
 * webhook (read back from a row) → answer (JSON).
 */

/** A URL column of the `webhooks` table and its value (null: the event URL is not set). */
export type UrlColumns = Readonly<Record<string, string | null>>;

const columnOf = (field: UrlField): string => (field === 'url' ? 'url' : EVENT_URL_COLUMNS[field]);

/** Every URL column, `url` first. */
export const URL_COLUMNS: readonly string[] = ['url', ...EVENT_FIELDS.map(columnOf)];

const FIELD_OF_COLUMN: Readonly<Record<string, UrlField>> = Object.fromEntries((['url', ...EVENT_FIELDS] as UrlField[]).map((field) => [columnOf(field), field]));

/** The member names (`url`, `transaction.created`, …) of the columns that `changed` says changed: for the audit trail. */
export const fieldsOfColumns = (columns: UrlColumns, changed: (column: string, value: string | null) => boolean): UrlField[] =>
  Object.entries(columns)
    .filter(([column, value]) => changed(column, value))
    .map(([column]) => FIELD_OF_COLUMN[column]);

/** The URL members a validated body gives, by field: `url`, then each event (a null group clears all its events). */
export function fieldsOfBody<T extends string | null>(body: { url?: string } & Partial<Record<keyof typeof EVENT_GROUPS, object | null>>): [UrlField, T][] {
  const fields: [UrlField, T][] = body.url === undefined ? [] : [['url', body.url as T]];
  for (const [group, members] of Object.entries(EVENT_GROUPS) as [keyof typeof EVENT_GROUPS, readonly string[]][]) {
    const value = body[group];
    if (value === undefined) continue;
    for (const member of members) {
      const url = value === null ? (null as T) : (value as Record<string, T | undefined>)[member];
      if (url !== undefined) fields.push([`${group}.${member}` as EventField, url]);
    }
  }
  return fields;
}

/** A create's fields, each URL checked: `url` is always among them. */
export function draftOf(fields: readonly [UrlField, CheckedUrl][]): WebhookDraft {
  const { url, ...events } = Object.fromEntries(fields) as Record<UrlField, CheckedUrl>;
  return { url, events };
}

export function patchOf(fields: readonly [UrlField, CheckedUrl | null][]): WebhookPatch {
  const { url, ...events } = Object.fromEntries(fields) as Record<UrlField, CheckedUrl | null>;
  return url === undefined || url === null ? { events } : { url, events };
}

/** The URLs of a draft or patch that are set (a patch's clears need no resolving). */
export function urlsOf({ url, events }: WebhookDraft | WebhookPatch): [UrlField, CheckedUrl][] {
  const given = [...(url ? [['url', url] as const] : []), ...Object.entries(events)] as [UrlField, CheckedUrl | null][];
  return given.filter((entry): entry is [UrlField, CheckedUrl] => entry[1] !== null);
}

/** What a draft stores: the normalized hrefs. */
export const storedOf = ({ url, events }: WebhookDraft): StoredWebhook => ({
  url: url.href,
  events: Object.fromEntries(Object.entries(events).map(([field, checked]) => [field, checked!.href])),
});

/** Every URL column of a stored webhook (events not set are null): what an insert or a replace writes. */
export const columnsOfStored = ({ url, events }: StoredWebhook): UrlColumns =>
  Object.fromEntries([['url', url], ...EVENT_FIELDS.map((field) => [columnOf(field), events[field] ?? null])]);

/** Only the columns a patch changes. */
export const columnsOfPatch = ({ url, events }: WebhookPatch): UrlColumns =>
  Object.fromEntries([
    ...(url ? [['url', url.href]] : []),
    ...Object.entries(events).map(([field, checked]) => [columnOf(field as EventField), checked === null ? null : checked!.href]),
  ]);

/** A row with the URL columns (and the name) back to a stored webhook. */
export function storedOfRow(row: Readonly<Record<string, unknown>>): StoredWebhook & { name: string } {
  const events: Partial<Record<EventField, string>> = {};
  for (const field of EVENT_FIELDS) {
    const value = row[columnOf(field)];
    if (typeof value === 'string') events[field] = value;
  }
  return { name: row.name as string, url: row.url as string, events };
}

/** The JSON of a webhook: `url` and only the groups and events that are set. */
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
