/** Every error code this service answers with (docs/api.md 7), and the operator CLI's own. */
export type ErrorCode =
  | 'bad request'
  | 'invalid name'
  | 'invalid url'
  | 'limit reached'
  | 'unauthorized'
  | 'no organization'
  | 'no permission'
  | 'forbidden origin'
  | 'forbidden'
  | 'no issuer'
  | 'not found'
  | 'no card'
  | 'method not allowed'
  | 'name conflict'
  | 'idempotency conflict'
  | 'cancelled'
  | 'rate limited'
  | 'queue full'
  | 'disabled'
  | 'request timeout'
  | 'payload too large'
  | 'unsupported media type'
  | 'headers too large'
  | 'internal error'
  | 'unavailable'
  | 'dns unavailable'
  | 'issuer unavailable'
  // the operator CLI's (docs/api.md 8)
  | 'conflict'
  | 'invalid';

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * The one error a service, guard or pipe throws: a code of the contract, the HTTP status it
 * answers with, and the details the answer's `message` lists. `http/` maps it to an answer and
 * the CLI to its `{code, message}` line; neither adds meaning of its own.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly details?: readonly string[],
    /** Tells the client when to try again (429, 503). */
    readonly retryAfterSeconds?: number,
  ) {
    super(details?.join('; ') ?? code);
    this.name = 'DomainError';
  }
}

/** The details of an answer: none when none are given. */
const listed = (details: readonly string[]): readonly string[] | undefined => (details.length > 0 ? details : undefined);

export const Errors = {
  badRequest: (details?: string[]) => new DomainError(400, 'bad request', details),
  invalidName: (details: string[]) => new DomainError(400, 'invalid name', details),
  invalidUrl: (details: string[]) => new DomainError(400, 'invalid url', details),
  limitReached: (max: number) =>
    new DomainError(400, 'limit reached', [`an organization has at most ${max} webhook${max === 1 ? '' : 's'}`]),
  unauthorized: () => new DomainError(401, 'unauthorized'),
  noOrganization: () => new DomainError(403, 'no organization'),
  noPermission: () => new DomainError(403, 'no permission'),
  forbiddenOrigin: () => new DomainError(403, 'forbidden origin'),
  /** A platform key restricted to other organizations than the one named (docs/api.md 10.1). */
  forbidden: (...details: string[]) => new DomainError(403, 'forbidden', listed(details)),
  noIssuer: () => new DomainError(403, 'no issuer'),
  notFound: (...what: string[]) => new DomainError(404, 'not found', listed(what)),
  noCard: () => new DomainError(404, 'no card'),
  methodNotAllowed: () => new DomainError(405, 'method not allowed'),
  nameConflict: () => new DomainError(409, 'name conflict'),
  idempotencyConflict: (...details: string[]) => new DomainError(409, 'idempotency conflict', listed(details)),
  /** A cancelled delivery cannot be sent again (its webhook was deleted). */
  cancelled: () => new DomainError(409, 'cancelled'),
  /** An operator command meeting what exists (a user with that e-mail). */
  conflict: (what: string) => new DomainError(409, 'conflict', [what]),
  /** An operator command breaking a rule (a card for a non-member). */
  invalid: (what: string) => new DomainError(400, 'invalid', [what]),
  payloadTooLarge: (...details: string[]) => new DomainError(413, 'payload too large', listed(details)),
  unsupportedMediaType: () => new DomainError(415, 'unsupported media type'),
  rateLimited: (retryAfterSeconds: number) => new DomainError(429, 'rate limited', undefined, retryAfterSeconds),
  /** docs/api.md 10.10: the organization has DELIVERY_PENDING_PER_ORG_MAX pending deliveries. */
  queueFull: (retryAfterSeconds: number, ...details: string[]) => new DomainError(429, 'queue full', listed(details), retryAfterSeconds),
  /** A disabled webhook takes no replay, test or recovery until it is enabled (docs/api.md 10.10, 10.14): `{code}` alone, as the other 409s. */
  disabled: () => new DomainError(409, 'disabled'),
  internal: () => new DomainError(500, 'internal error'),
  unavailable: () => new DomainError(503, 'unavailable', undefined, RETRY_AFTER_SECONDS),
  dnsUnavailable: () => new DomainError(503, 'dns unavailable', undefined, RETRY_AFTER_SECONDS),
  /** A card's processor could not give the wallet's payload (docs/api.md 6.1). */
  issuerUnavailable: () => new DomainError(503, 'issuer unavailable', undefined, RETRY_AFTER_SECONDS),
};
