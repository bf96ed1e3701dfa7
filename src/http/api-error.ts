import { HttpException } from '@nestjs/common';

/** Every error code this service answers with (SPEC 4-7). */
export type ErrorCode =
  | 'bad request'
  | 'invalid name'
  | 'invalid url'
  | 'limit reached'
  | 'unauthorized'
  | 'no organization'
  | 'no permission'
  | 'forbidden origin'
  | 'no issuer'
  | 'not found'
  | 'no card'
  | 'method not allowed'
  | 'name conflict'
  | 'rate limited'
  | 'request timeout'
  | 'payload too large'
  | 'unsupported media type'
  | 'headers too large'
  | 'internal error'
  | 'unavailable'
  | 'dns unavailable';

/** The one error body: `{code, message?}`. */
export interface ErrorBody {
  code: ErrorCode;
  message?: string[];
}

/** Seconds a client should wait before retrying a 503. */
export const RETRY_AFTER_SECONDS = 5;

/** An error answer: its status, its body and any headers it needs (Allow, Retry-After). */
export class ApiError extends HttpException {
  constructor(
    status: number,
    readonly code: ErrorCode,
    readonly messages?: string[],
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(messages ? { code, message: messages } : { code }, status);
  }

  get body(): ErrorBody {
    return this.getResponse() as ErrorBody;
  }
}

export const Errors = {
  badRequest: (messages?: string[]) => new ApiError(400, 'bad request', messages),
  invalidName: (messages: string[]) => new ApiError(400, 'invalid name', messages),
  invalidUrl: (messages: string[]) => new ApiError(400, 'invalid url', messages),
  limitReached: (max: number) => new ApiError(400, 'limit reached', [`an organization has at most ${max} webhook${max === 1 ? '' : 's'}`]),
  unauthorized: () => new ApiError(401, 'unauthorized'),
  noOrganization: () => new ApiError(403, 'no organization'),
  noPermission: () => new ApiError(403, 'no permission'),
  forbiddenOrigin: () => new ApiError(403, 'forbidden origin'),
  noIssuer: () => new ApiError(403, 'no issuer'),
  notFound: () => new ApiError(404, 'not found'),
  noCard: () => new ApiError(404, 'no card'),
  methodNotAllowed: (allow: string[]) => new ApiError(405, 'method not allowed', undefined, { Allow: allow.join(', ') }),
  nameConflict: () => new ApiError(409, 'name conflict'),
  payloadTooLarge: () => new ApiError(413, 'payload too large'),
  rateLimited: (retryAfterSeconds: number) => new ApiError(429, 'rate limited', undefined, { 'Retry-After': String(retryAfterSeconds) }),
  unsupportedMediaType: () => new ApiError(415, 'unsupported media type'),
  internal: () => new ApiError(500, 'internal error'),
  unavailable: () => new ApiError(503, 'unavailable', undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) }),
  dnsUnavailable: () => new ApiError(503, 'dns unavailable', undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) }),
};
