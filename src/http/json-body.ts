import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { json, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import typeis from 'type-is';
import { Errors } from '../common/domain-error';
import { jsonStructureProblem } from './json-structure';

/** docs/api.md 4: bodies over this answer 413. */
export const BODY_LIMIT = '16kb';
/** docs/api.md 10.1: an event's body may be larger. */
export const EVENT_BODY_LIMIT = '256kb';
/** docs/api.md 10.1.1: a batch of events, larger still. */
export const EVENT_BATCH_BODY_LIMIT = '1mb';
export const JSON_TYPES = ['application/json', 'application/merge-patch+json'];

/** A request with a body: docs/api.md 4's body rules apply to it. */
export const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * docs/api.md 4: a request with a body must be JSON (a PATCH may also send a JSON Merge Patch) whose
 * only parameter, if any, is `charset=utf-8`, else 415, before authentication and before the body is
 * read. Runs ahead of the JSON parser, which would otherwise decode UTF-16 or UTF-7 as asked.
 */
export function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req)) return next();
  const accepted = req.method === 'PATCH' ? JSON_TYPES : JSON_TYPES.slice(0, 1);
  next(typeis(req, accepted) && onlyUtf8(req) ? undefined : Errors.unsupportedMediaType());
}

/**
 * No parameter, or exactly `charset=utf-8` in any case, quoted or not (empty parameters, as in
 * `application/json;`, are allowed by RFC 9110 and ignored). The type itself is type-is's to judge.
 */
function onlyUtf8(req: IncomingMessage): boolean {
  const parameters = (req.headers['content-type'] ?? '')
    .split(';')
    .slice(1)
    .map((parameter) => parameter.trim())
    .filter((parameter) => parameter !== '');
  return parameters.length === 0 || (parameters.length === 1 && /^charset=("?)utf-8\1$/i.test(parameters[0]!));
}

/**
 * A JSON body parser of at most `limit` for these media types. Malformed JSON, and bytes that are
 * not UTF-8 (RFC 8259; rather than read with U+FFFD in their place and stored so), are 400 `bad
 * request` before authentication (docs/api.md 4). Any JSON value parses (not `strict`): one that
 * is not an object (`null`, `42`) is a shape problem that validation names after authentication
 * (`body: must be a JSON object`). Compressed bodies are refused (415), as they could hide a
 * larger one. A body with more structure than json-structure.ts allows is refused before it is
 * parsed (400 `bad request`), so that no body within the size limits blocks the event loop.
 */
export const jsonBody = (limit: string, types: string[]): RequestHandler =>
  json({ limit, type: types, strict: false, inflate: false, verify: requireParsable });

/** Every body it reads was declared UTF-8, or nothing (requireJsonBody refused the other charsets); then its structure is bounded. */
function requireParsable(_req: IncomingMessage, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Errors.badRequest(['body: must be UTF-8']);
  const problem = jsonStructureProblem(body);
  if (problem !== undefined) throw Errors.badRequest([`body: ${problem}`]);
}
