import type { WebhookDto } from './dto/webhook-responses.dto';
import { EVENT_URL_COLUMNS } from './entities/webhook.entity';
import { CheckedUrl, EVENT_GROUPS, StoredWebhook, UrlField, WebhookDraft, WebhookPatch } from './webhook.model';
import { EVENT_FIELDS, EventField } from '../event-types/event-types';

/*
 * Every conversion between the shapes of a webhook, in the order a request meets them:
 * body → fields (for the URL rules) → draft or patch → columns (the repository's) → stored
 * webhook (read back from a row) → answer (JSON).
 */

/** A column of the `webhooks` table a write sets, and its value (null: the event URL or the rate limit is not set). */
export type WebhookColumns = Readonly<Record<string, string | number | null>>;

/** A member of a webhook's JSON that the audit trail names when it changes. */
export type WebhookField = UrlField | 'rateLimit';

const columnOf = (field: UrlField): string => (field === 'url' ? 'url' : EVENT_URL_COLUMNS[field]);

/** Every URL column, `url` first. */
export const URL_COLUMNS: readonly string[] = ['url', ...EVENT_FIELDS.map(columnOf)];
export const RATE_LIMIT_COLUMN = 'rate_limit';

const FIELD_OF_COLUMN: Readonly<Record<string, WebhookField>> = {
  ...Object.fromEntries((['url', ...EVENT_FIELDS] as UrlField[]).map((field) => [columnOf(field), field])),
  [RATE_LIMIT_COLUMN]: 'rateLimit',
};

/** The member names (`url`, `transaction.created`, `rateLimit`, …) of the columns that `changed` says changed: for the audit trail. */
export const fieldsOfColumns = (
  columns: WebhookColumns,
  changed: (column: string, value: string | number | null) => boolean,
): WebhookField[] =>
  Object.entries(columns)
    .filter(([column, value]) => changed(column, value))
    .map(([column]) => FIELD_OF_COLUMN[column]);

/** The URL members a validated body gives, by field: `url`, then each event (a null group clears all its events). */
export function fieldsOfBody<T extends string | null>(
  body: { url?: string } & Partial<Record<keyof typeof EVENT_GROUPS, object | null>>,
): [UrlField, T][] {
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

/** A create's fields, each URL checked (`url` is always among them), and its rate limit when given. */
export function draftOf(fields: readonly [UrlField, CheckedUrl][], rateLimit?: number): WebhookDraft {
  const { url, ...events } = Object.fromEntries(fields) as Record<UrlField, CheckedUrl>;
  return rateLimit === undefined ? { url, events } : { url, events, rateLimit };
}

export function patchOf(fields: readonly [UrlField, CheckedUrl | null][], rateLimit?: number | null): WebhookPatch {
  const { url, ...events } = Object.fromEntries(fields) as Record<UrlField, CheckedUrl | null>;
  return { ...(url === undefined || url === null ? {} : { url }), events, ...(rateLimit === undefined ? {} : { rateLimit }) };
}

/** The URLs of a draft or patch that are set (a patch's clears need no resolving). */
export function urlsOf({ url, events }: WebhookDraft | WebhookPatch): [UrlField, CheckedUrl][] {
  const given = [...(url ? [['url', url] as const] : []), ...Object.entries(events)] as [UrlField, CheckedUrl | null][];
  return given.filter((entry): entry is [UrlField, CheckedUrl] => entry[1] !== null);
}

/** What a draft stores: the normalized hrefs, and the rate limit when given. */
export const storedOf = ({ url, events, rateLimit }: WebhookDraft): StoredWebhook => ({
  url: url.href,
  events: Object.fromEntries(Object.entries(events).map(([field, checked]) => [field, checked!.href])),
  ...(rateLimit === undefined ? {} : { rateLimit }),
});

/**
 * Every URL column of a stored webhook (events not set are null), and the rate limit when it
 * has one: what an insert writes, and what a legacy replace writes (keeping a rate limit it
 * was not given).
 */
export const columnsOfStored = ({ url, events, rateLimit }: StoredWebhook): WebhookColumns =>
  Object.fromEntries([
    ['url', url],
    ...EVENT_FIELDS.map((field) => [columnOf(field), events[field] ?? null]),
    ...(rateLimit === undefined ? [] : [[RATE_LIMIT_COLUMN, rateLimit]]),
  ]);

/** Only the columns a patch changes. */
export const columnsOfPatch = ({ url, events, rateLimit }: WebhookPatch): WebhookColumns =>
  Object.fromEntries([
    ...(url ? [['url', url.href]] : []),
    ...Object.entries(events).map(([field, checked]) => [columnOf(field as EventField), checked === null ? null : checked!.href]),
    ...(rateLimit === undefined ? [] : [[RATE_LIMIT_COLUMN, rateLimit]]),
  ]);

/** A row with the URL columns, `rate_limit`, `disabled_at` (and the name) back to a stored webhook. */
export function storedOfRow(row: Readonly<Record<string, unknown>>): StoredWebhook & { name: string } {
  const events: Partial<Record<EventField, string>> = {};
  for (const field of EVENT_FIELDS) {
    const value = row[columnOf(field)];
    if (typeof value === 'string') events[field] = value;
  }
  return {
    name: row.name as string,
    url: row.url as string,
    events,
    ...(row.rate_limit === null || row.rate_limit === undefined ? {} : { rateLimit: Number(row.rate_limit) }),
    ...(row.disabled_at === null || row.disabled_at === undefined ? {} : { disabled: true as const }),
  };
}

/** The JSON of a webhook: `url`, only the groups and events that are set, `rateLimit` when set, `disabled` when it is. */
export function toWebhookBody({ url, events, rateLimit, disabled }: StoredWebhook): WebhookDto {
  const body: Record<string, unknown> = { url };
  for (const [group, members] of Object.entries(EVENT_GROUPS)) {
    const set: Record<string, string> = {};
    for (const member of members) {
      const href = events[`${group}.${member}` as EventField];
      if (href !== undefined) set[member] = href;
    }
    if (Object.keys(set).length > 0) body[group] = set;
  }
  if (rateLimit !== undefined) body.rateLimit = rateLimit;
  if (disabled) body.disabled = true;
  return body as unknown as WebhookDto;
}

/**
 * `GET /webhook` as JSON text with the keys in sorted order. Built as text because a JS object
 * would move integer-like names ("7", "10") ahead of the others, whatever the insertion order.
 */
export function webhookListJson(webhooks: readonly (StoredWebhook & { name: string })[]): string {
  const sorted = [...webhooks].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return `{${sorted.map((w) => `${JSON.stringify(w.name)}:${JSON.stringify(toWebhookBody(w))}`).join(',')}}`;
}
