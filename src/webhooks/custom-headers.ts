import { Problems } from '../common/validation/problems';

/*
 * A webhook's custom headers (docs/api.md 10.15): what a create, a legacy create-or-update or a
 * PATCH may give, how a patch merges into what is stored, and how a read shows them. The values
 * are credentials (a receiver's own API key): no message here ever carries one.
 */

/** Headers in the order they were given: names as sent, values as sent. */
export type HeaderList = readonly (readonly [name: string, value: string])[];

export const MAX_HEADERS = 20;
export const MAX_HEADER_VALUE = 1024;
/** All values together, in bytes (a value is ASCII: one byte a character). */
export const MAX_HEADER_BYTES = 8192;
/** How a read shows every value. */
export const MASKED_VALUE = '********';

/** An HTTP token (RFC 9110 5.6.2) of 1 to 64 characters. */
const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,64}$/;
/** 1 to 1024 visible ASCII characters or spaces, neither first nor last a space. */
const VALUE = /^[\x21-\x7e](?:[\x20-\x7e]{0,1022}[\x21-\x7e])?$/;
/**
 * What the service sets itself (trace context included), what the connection and any proxy own,
 * and what a receiver's gateway may trust as said by its own network: the client's address, the
 * method, the path it routes by, a session (compared in lower case).
 */
const REFUSED_NAMES = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'user-agent',
  'cookie',
  'forwarded',
  'x-real-ip',
  'x-http-method-override',
  'x-method-override',
  'x-http-method',
  'x-original-url',
  'x-rewrite-url',
  'traceparent',
  'tracestate',
  'baggage',
]);
const REFUSED_PREFIXES = ['proxy-', 'webhook-', 'x-forwarded-'];

const VALUE_RULE = `value must be 1 to ${MAX_HEADER_VALUE} visible ASCII characters or spaces, with no space first or last`;

const isRefusedHeaderName = (name: string): boolean => {
  const lower = name.toLowerCase();
  return REFUSED_NAMES.has(lower) || REFUSED_PREFIXES.some((prefix) => lower.startsWith(prefix));
};

const isHeaderPair = (item: unknown): item is [string, string] =>
  Array.isArray(item) && item.length === 2 && typeof item[0] === 'string' && typeof item[1] === 'string';

/** A stored list of custom headers, decoded (undefined: not a list of [name, value] pairs). */
export const headerListOf = (value: unknown): HeaderList | undefined =>
  Array.isArray(value) && value.every(isHeaderPair) ? value : undefined;

/** The stored headers an attempt sends: one stored before its name was refused is no longer sent. */
export const sendableHeaders = (headers: HeaderList): HeaderList => headers.filter(([name]) => !isRefusedHeaderName(name));

/**
 * What is wrong with a `headers` member as given (empty: nothing): every name an HTTP token,
 * neither refused nor given twice in any case, every value valid (a patch's may be null: remove
 * it), and the limits on what it sets (the first 20 problems, then how many more). A name that
 * is not a token is named by its position rather than echoed; a value never is.
 */
export function headerProblems(given: unknown, { nullable }: { nullable: boolean }): string[] {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return ['must be an object of header names and values'];
  const problems = new Problems();
  const seen = new Set<string>();
  const set: [string, string][] = [];
  for (const [index, [name, value]] of Object.entries(given).entries()) {
    if (!NAME.test(name)) {
      problems.add(`member ${index + 1}: the name is not an HTTP token of 1 to 64 characters`);
      continue;
    }
    if (isRefusedHeaderName(name)) problems.add(`${name}: not allowed (the service or the connection sets it)`);
    if (seen.has(name.toLowerCase())) problems.add(`${name}: given twice (names are compared case-insensitively)`);
    seen.add(name.toLowerCase());
    if (value === null && nullable) continue;
    if (typeof value !== 'string') problems.add(`${name}: value must be a string${nullable ? ' or null' : ''}`);
    else if (!VALUE.test(value)) problems.add(`${name}: ${VALUE_RULE}`);
    else set.push([name, value]);
  }
  for (const problem of headerLimitProblems(set)) problems.add(problem);
  return problems.messages;
}

/** What breaks the limits on a webhook's whole set of headers: their number and their values' size. */
export function headerLimitProblems(headers: HeaderList): string[] {
  return [
    ...(headers.length > MAX_HEADERS ? [`at most ${MAX_HEADERS} headers`] : []),
    ...(headers.reduce((bytes, [, value]) => bytes + value.length, 0) > MAX_HEADER_BYTES
      ? [`the values must be at most ${MAX_HEADER_BYTES} characters together`]
      : []),
  ];
}

/**
 * A JSON Merge Patch of headers over the stored ones, names matched case-insensitively: a null
 * member removes the stored header of that name, a value replaces it in its place under the
 * name as now sent, and a new name is added after the others, in the patch's order.
 */
export function mergeHeaders(stored: HeaderList, patch: Readonly<Record<string, string | null>>): HeaderList {
  const changes = new Map(Object.entries(patch).map(([name, value]) => [name.toLowerCase(), [name, value] as const]));
  const merged: [string, string][] = [];
  for (const [name, value] of stored) {
    const change = changes.get(name.toLowerCase());
    changes.delete(name.toLowerCase());
    if (change === undefined) merged.push([name, value]);
    else if (change[1] !== null) merged.push([change[0], change[1]]);
  }
  for (const [name, value] of changes.values()) if (value !== null) merged.push([name, value]);
  return merged;
}

/** A read's `headers`: every name as sent, its value masked. */
export const maskedHeaders = (names: readonly string[]): Record<string, string> =>
  Object.fromEntries(names.map((name) => [name, MASKED_VALUE]));
