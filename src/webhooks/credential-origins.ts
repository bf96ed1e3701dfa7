import type { StoredWebhook } from './webhook.model';

/*
 * docs/api.md 10.15: credentials stay with the origins they were written for. A write that gives
 * `url` or an event URL an origin (scheme, host, port) none of the webhook's URLs had must give
 * the headers and the auth the webhook carries again (or null), so that a console session cannot
 * send a receiver's API keys, or fresh OAuth tokens, to another host.
 */

/** What a write gives beside its URLs: the headers (all of them, a merge of some, null) and whether it gives an auth. */
export interface CredentialsGiven {
  /** `replace`: the whole set (create-or-update); a merge names only some (PATCH); null removes them; undefined keeps them. */
  readonly headers?: { readonly replace: unknown } | { readonly merge: Readonly<Record<string, unknown>> | null };
  readonly auth: boolean;
}

/** The origins among `hrefs` that none of `stored`'s URLs has. */
export function newOrigins(stored: StoredWebhook, hrefs: readonly string[]): string[] {
  const had = new Set([stored.url, ...Object.values(stored.events)].map((href) => new URL(href).origin));
  return [...new Set(hrefs.map((href) => new URL(href).origin))].filter((origin) => !had.has(origin));
}

/**
 * The 400 problems of a write that gives `hrefs` (its URLs) and `given` to `stored`: each
 * credential the webhook carries and the write does not give again, when a URL moves to a new
 * origin. A merge of headers gives them again only when it names every stored one.
 */
export function credentialOriginProblems(stored: StoredWebhook, hrefs: readonly string[], given: CredentialsGiven): string[] {
  const moved = newOrigins(stored, hrefs);
  if (moved.length === 0) return [];
  const problems: string[] = [];
  const rule = `must be given again, or null, with a URL on an origin the webhook has not used (${moved.join(', ')})`;
  if ((stored.headerNames?.length ?? 0) > 0 && !headersGivenAgain(stored.headerNames!, given.headers)) problems.push(`headers: ${rule}`);
  if (stored.auth !== undefined && !given.auth) problems.push(`auth: ${rule}`);
  return problems;
}

function headersGivenAgain(stored: readonly string[], headers: CredentialsGiven['headers']): boolean {
  if (headers === undefined) return false;
  if ('replace' in headers || headers.merge === null) return true;
  const named = new Set(Object.keys(headers.merge).map((name) => name.toLowerCase()));
  return stored.every((name) => named.has(name.toLowerCase()));
}
