import type { SealedSecret } from '../crypto/secret-box';
import { Column } from '../database/row-reader';
import { placeholders, type Row } from '../database/sql-executor';
import { wildcardOf } from '../event-types/event-types';
import { EVENT_URL_COLUMNS } from './entities/webhook.entity';

/** `takes` of types given as SQL: placeholders, or the columns of a derived table (ingest's fan-out of many events). */
const takesOf = (quotedType: string, quotedWildcard: string): string =>
  `(w.event_types IS NULL OR INSTR(w.event_types, ${quotedType}) > 0 OR INSTR(w.event_types, ${quotedWildcard}) > 0)`;

/*
 * The webhook tables as the delivery feature's SQL may use them. The webhooks feature owns
 * every column name of `webhooks` and `webhook_sources`: delivery's statements (the fan-out of
 * an event, the dispatcher's scan and claim) join them through these fragments, in one
 * statement, instead of asking a repository for them row by row on a hot path.
 */
export const WebhookSql = {
  /** A FROM clause: every webhook `w` with its organization's source `s`. */
  withSource: 'webhook_sources s JOIN webhooks w ON w.source_id = s.id',
  /** Joins the webhook `w` (and its source `s`) a column names, when it still exists. */
  joinedOn: (webhookIdColumn: string) =>
    `LEFT JOIN webhooks w ON w.id = ${webhookIdColumn} LEFT JOIN webhook_sources s ON s.id = w.source_id`,
  id: 'w.id',
  organization: 's.organization_id',
  enabled: 'w.disabled_at IS NULL',
  rateLimit: 'w.rate_limit',
  /** Its deliveries go one at a time, in order (docs/api.md 10.18): 1 or 0. */
  ordered: 'w.ordered',
  /**
   * The webhook takes events of the type that takesParams names (docs/api.md 10.13): it has no
   * `events`, or they list the type or its group's wildcard. `event_types` is the JSON array as
   * sent, whose items are quoted: a quoted type matches only itself, on both dialects.
   */
  takes: takesOf('?', '?'),
  /** The same for a type and wildcard that two columns hold, each as takesParams gives it. */
  takesOf,
  takesParams: (type: string): [string, string] => [JSON.stringify(type), JSON.stringify(wildcardOf(type))],
  /** 1 when the webhook that a column names is disabled, else 0 (a scalar subquery, not locked: the record's check). */
  disabledOf: (webhookIdColumn: string) =>
    `(SELECT COUNT(*) FROM webhooks w WHERE w.id = ${webhookIdColumn} AND w.disabled_at IS NOT NULL)`,
  /**
   * Locks the source rows of `organizations` organizations in share mode, in id order (ingest's
   * group commit: a webhook write, which locks its source exclusively, is wholly before or after
   * the group). Its parameters: the organizations' ids.
   */
  sourcesInShareMode: (organizations: number, forShare: string) =>
    `SELECT id FROM webhook_sources WHERE organization_id IN (${placeholders(organizations)}) ORDER BY organization_id${forShare}`,
  /** What an attempt needs of its webhook, read back by `targetOfRow`. */
  targetColumns: [
    'w.name AS w_name',
    'w.url AS w_url',
    ...Object.values(EVENT_URL_COLUMNS).map((column) => `w.${column} AS w_${column}`),
    'w.secret AS w_secret',
    'w.secret_key_id AS w_secret_key_id',
    'w.previous_secret AS w_previous_secret',
    'w.previous_secret_key_id AS w_previous_secret_key_id',
    'w.previous_secret_expires_at AS w_previous_secret_expires_at',
    'w.headers AS w_headers',
    'w.headers_key_id AS w_headers_key_id',
    'w.auth_secret AS w_auth_secret',
    'w.auth_secret_key_id AS w_auth_secret_key_id',
    'w.disabled_at AS w_disabled_at',
  ].join(', '),
} as const;

/** Where and how an attempt goes: the webhook as stored at the time of the attempt (docs/api.md 10.2). */
export interface WebhookTarget {
  readonly name: string;
  /** The URL for the event's type: its per-event URL when set, else `url`. */
  readonly url: string;
  readonly secret: SealedSecret;
  /** A rotated-out secret that still signs until `expiresAt` (docs/api.md 10.7). */
  readonly previous?: { readonly secret: SealedSecret; readonly expiresAt: Date };
  /** Its custom headers (docs/api.md 10.15), sealed: a JSON list of [name, value] pairs bound by customHeadersBinding. */
  readonly headers?: SealedSecret;
  /** How it authenticates to its receiver (docs/api.md 10.16), sealed: the JSON settings bound by receiverAuthBinding. */
  readonly auth?: SealedSecret;
  readonly disabled: boolean;
}

const sealedOrNone = (ciphertext: unknown, keyId: unknown): SealedSecret | undefined =>
  ciphertext === null ? undefined : { ciphertext: Column.text(ciphertext), keyId: Column.text(keyId) };

/** The target of `WebhookSql.targetColumns` for an event type; undefined when the webhook is gone. */
export function targetOfRow(row: Row, eventType: string): WebhookTarget | undefined {
  if (row.w_name === null || row.w_name === undefined) return undefined;
  const column = EVENT_URL_COLUMNS[eventType as keyof typeof EVENT_URL_COLUMNS] as string | undefined;
  const eventUrl = column === undefined ? null : Column.nullable(Column.text)(row[`w_${column}`]);
  const previous = sealedOrNone(row.w_previous_secret, row.w_previous_secret_key_id);
  const previousExpiresAt = Column.nullable(Column.moment)(row.w_previous_secret_expires_at);
  return {
    name: Column.text(row.w_name),
    url: eventUrl ?? Column.text(row.w_url),
    secret: { ciphertext: Column.text(row.w_secret), keyId: Column.text(row.w_secret_key_id) },
    previous: previous === undefined || previousExpiresAt === null ? undefined : { secret: previous, expiresAt: previousExpiresAt },
    headers: sealedOrNone(row.w_headers, row.w_headers_key_id),
    auth: sealedOrNone(row.w_auth_secret, row.w_auth_secret_key_id),
    disabled: Column.present(row.w_disabled_at),
  };
}
