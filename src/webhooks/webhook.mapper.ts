import type { SealedSecret } from '../crypto/secret-box';
import { Column } from '../database/row-reader';
import type { Row } from '../database/sql-executor';
import type { WebhookDto } from './dto/webhook-responses.dto';
import { EVENT_URL_COLUMNS } from './entities/webhook.entity';
import { HeaderList, maskedHeaders } from './custom-headers';
import { CheckedUrl, EVENT_GROUPS, StoredWebhook, UrlField, WebhookDraft, WebhookPatch } from './webhook.model';
import { EVENT_FIELDS, EventField, EventSubscription } from '../event-types/event-types';

/*
 * Every conversion between the shapes of a webhook, in the order a request meets them:
 * body → fields (for the URL rules) → draft or patch → columns (the repository's) → stored
 * webhook (read back from a row) → answer (JSON).
 */

/** A member of a webhook's JSON that the audit trail names when it changes. */
export type WebhookField = UrlField | 'rateLimit' | 'events' | 'headers';

/** A URL column: `url`, and each event type's. */
type UrlColumn = 'url' | (typeof EVENT_URL_COLUMNS)[EventField];

const columnOf = (field: UrlField): UrlColumn => (field === 'url' ? 'url' : EVENT_URL_COLUMNS[field]);

/** Every URL column, `url` first. */
export const URL_COLUMNS: readonly UrlColumn[] = ['url', ...EVENT_FIELDS.map(columnOf)];
export const RATE_LIMIT_COLUMN = 'rate_limit';
/** The event types a webhook takes (docs/api.md 10.13): the JSON array as sent; null: every type. */
export const EVENT_TYPES_COLUMN = 'event_types';
/** Its custom headers' names as sent (docs/api.md 10.15): a JSON array, for reads; the headers are sealed apart (headerColumnsOf). */
export const HEADER_NAMES_COLUMN = 'header_names';

/**
 * A column of the `webhooks` table that a create, a legacy create-or-update or a patch writes
 * from what the request gave (the secrets and the disabling have statements of their own). The
 * keys of WebhookColumns become column names in SQL: a misspelt one does not compile.
 */
export type WebhookColumn =
  UrlColumn | typeof RATE_LIMIT_COLUMN | typeof EVENT_TYPES_COLUMN | typeof HEADER_NAMES_COLUMN | 'headers' | 'headers_key_id';

/** A column's value as written (null: the event URL, the rate limit, the event types or the headers are not set). */
type ColumnValue = string | number | null;

/** The columns a write sets, and their values. */
export type WebhookColumns = Readonly<Partial<Record<WebhookColumn, ColumnValue>>>;

/** Columns and their values, in the order given (an insert names them in it). */
export const webhookColumns = (entries: readonly (readonly [WebhookColumn, ColumnValue])[]): WebhookColumns => Object.fromEntries(entries);

const FIELD_OF_COLUMN = new Map<WebhookColumn, WebhookField>([
  ...(['url', ...EVENT_FIELDS] as const).map((field) => [columnOf(field), field] as const),
  [RATE_LIMIT_COLUMN, 'rateLimit'],
  [EVENT_TYPES_COLUMN, 'events'],
]);

/** The member names (`url`, `transaction.created`, `rateLimit`, …) of the compared columns that `changed` says changed: for the audit trail. */
export const fieldsOfColumns = (columns: WebhookColumns, changed: (column: WebhookColumn, value: ColumnValue) => boolean): WebhookField[] =>
  // Object.entries types its keys as any string: these are the columns WebhookColumns allows.
  (Object.entries(columns) as [WebhookColumn, ColumnValue][]).flatMap(([column, value]) => {
    const field = FIELD_OF_COLUMN.get(column);
    return field !== undefined && changed(column, value) ? [field] : [];
  });

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

/** The members of a create, a legacy create-or-update or a patch besides the URLs, each only when given. */
const givenOnly = <T extends object>(members: T): Partial<T> =>
  Object.fromEntries(Object.entries(members).filter(([, value]) => value !== undefined)) as Partial<T>;

/** A create's fields, each URL checked (`url` is always among them), and its other members when given. */
export function draftOf(
  fields: readonly [UrlField, CheckedUrl][],
  members: { rateLimit?: number; events?: EventSubscription[]; headers?: Readonly<Record<string, string>> } = {},
): WebhookDraft {
  const { url, ...events } = Object.fromEntries(fields) as Record<UrlField, CheckedUrl>;
  return {
    url,
    events,
    ...givenOnly({
      rateLimit: members.rateLimit,
      eventTypes: members.events,
      headers: members.headers && (Object.entries(members.headers) as HeaderList),
    }),
  };
}

export function patchOf(
  fields: readonly [UrlField, CheckedUrl | null][],
  members: {
    rateLimit?: number | null;
    events?: EventSubscription[] | null;
    headers?: Readonly<Record<string, string | null>> | null;
  } = {},
): WebhookPatch {
  const { url, ...events } = Object.fromEntries(fields) as Record<UrlField, CheckedUrl | null>;
  return {
    ...(url === undefined || url === null ? {} : { url }),
    events,
    ...givenOnly({ rateLimit: members.rateLimit, eventTypes: members.events, headers: members.headers }),
  };
}

/** The URLs of a draft or patch that are set (a patch's clears need no resolving). */
export function urlsOf({ url, events }: WebhookDraft | WebhookPatch): [UrlField, CheckedUrl][] {
  const given = [...(url ? [['url', url] as const] : []), ...Object.entries(events)] as [UrlField, CheckedUrl | null][];
  return given.filter((entry): entry is [UrlField, CheckedUrl] => entry[1] !== null);
}

/** What a draft stores: the normalized hrefs, and the other members when given (the headers' names only). */
export const storedOf = ({ url, events, rateLimit, eventTypes, headers }: WebhookDraft): StoredWebhook => ({
  url: url.href,
  events: Object.fromEntries(Object.entries(events).map(([field, checked]) => [field, checked!.href])),
  ...givenOnly({ rateLimit, eventTypes, headerNames: headers && headers.length > 0 ? headers.map(([name]) => name) : undefined }),
});

/**
 * Every URL column of a stored webhook (events not set are null), and the rate limit and the
 * event types when it has them: what an insert writes, and what a legacy replace writes
 * (keeping a rate limit or event types it was not given). The headers are written apart.
 */
export const columnsOfStored = ({ url, events, rateLimit, eventTypes }: StoredWebhook): WebhookColumns =>
  webhookColumns([
    ['url', url],
    ...EVENT_FIELDS.map((field) => [columnOf(field), events[field] ?? null] as const),
    ...(rateLimit === undefined ? [] : [[RATE_LIMIT_COLUMN, rateLimit] as const]),
    ...(eventTypes === undefined ? [] : [[EVENT_TYPES_COLUMN, JSON.stringify(eventTypes)] as const]),
  ]);

/** Only the columns a patch changes (the headers are written apart). */
export const columnsOfPatch = ({ url, events, rateLimit, eventTypes }: WebhookPatch): WebhookColumns =>
  webhookColumns([
    ...(url ? [['url', url.href] as const] : []),
    ...Object.entries(events).map(([field, checked]) => [columnOf(field as EventField), checked === null ? null : checked!.href] as const),
    ...(rateLimit === undefined ? [] : [[RATE_LIMIT_COLUMN, rateLimit] as const]),
    ...(eventTypes === undefined ? [] : [[EVENT_TYPES_COLUMN, eventTypes === null ? null : JSON.stringify(eventTypes)] as const]),
  ]);

/** The header columns of a webhook with these headers, sealed (none: every column null). */
export const headerColumnsOf = (headers: HeaderList, sealed: SealedSecret | null): WebhookColumns => ({
  [HEADER_NAMES_COLUMN]: headers.length === 0 ? null : JSON.stringify(headers.map(([name]) => name)),
  headers: sealed?.ciphertext ?? null,
  headers_key_id: sealed?.keyId ?? null,
});

/** A JSON array column as stored (null: not set). */
const readList = Column.nullable(Column.json<string[]>());
const readUrl = Column.nullable(Column.text);
const readRateLimit = Column.nullable(Column.int);

/** A row with the URL columns, `rate_limit`, `event_types`, `header_names`, `disabled_at` (and the name) back to a stored webhook. */
export function storedOfRow(row: Row): StoredWebhook & { name: string } {
  const events: Partial<Record<EventField, string>> = {};
  for (const field of EVENT_FIELDS) {
    const value = readUrl(row[columnOf(field)]);
    if (value !== null) events[field] = value;
  }
  const rateLimit = readRateLimit(row[RATE_LIMIT_COLUMN]);
  return {
    name: Column.text(row.name),
    url: Column.text(row.url),
    events,
    ...(rateLimit === null ? {} : { rateLimit }),
    ...givenOnly({
      eventTypes: readList(row[EVENT_TYPES_COLUMN]) ?? undefined,
      headerNames: readList(row[HEADER_NAMES_COLUMN]) ?? undefined,
    }),
    ...(Column.present(row.disabled_at) ? { disabled: true as const } : {}),
  };
}

/**
 * The JSON of a webhook: `url`, only the groups and events that are set, `events` (the types it
 * takes, as sent) and `headers` (every value masked) when set, `rateLimit` when set, `disabled`
 * when it is.
 */
export function toWebhookBody({ url, events, rateLimit, eventTypes, headerNames, disabled }: StoredWebhook): WebhookDto {
  const body: Record<string, unknown> = { url };
  for (const [group, members] of Object.entries(EVENT_GROUPS)) {
    const set: Record<string, string> = {};
    for (const member of members) {
      const href = events[`${group}.${member}` as EventField];
      if (href !== undefined) set[member] = href;
    }
    if (Object.keys(set).length > 0) body[group] = set;
  }
  if (eventTypes !== undefined) body.events = eventTypes;
  if (headerNames !== undefined) body.headers = maskedHeaders(headerNames);
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
