import { fieldsOfColumns, WebhookColumns } from './webhook.mapper';

/*
 * What the audit entry of a webhook write names in `fields` (docs/api.md 10.9): the members a
 * write set or changed, never their values.
 */

/** The members a new webhook sets. */
export const setFields = (columns: WebhookColumns): string[] =>
  fieldsOfColumns(columns, (_column, value) => value !== null && value !== undefined);

/** The members whose value `columns` changes from the stored ones. */
export const changedFields = (stored: WebhookColumns, columns: WebhookColumns): string[] =>
  fieldsOfColumns(columns, (column, value) => (stored[column] ?? null) !== (value ?? null));
