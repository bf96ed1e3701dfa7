import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import typeis from 'type-is';
import { Errors } from '../common/domain-error';

/** docs/api.md 4: bodies over this answer 413. */
export const BODY_LIMIT = '16kb';
/** docs/api.md 10.1: an event's body may be larger. */
export const EVENT_BODY_LIMIT = '256kb';
export const JSON_TYPES = ['application/json', 'application/merge-patch+json'];

/** A request with a body: docs/api.md 4's body rules apply to it. */
export const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * docs/api.md 4: a request with a body must be JSON (a PATCH may also send a JSON Merge Patch), else
 * 415, before authentication and before the body is read. Runs ahead of the JSON parser.
 */
export function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req)) return next();
  const accepted = req.method === 'PATCH' ? JSON_TYPES : JSON_TYPES.slice(0, 1);
  next(typeis(req, accepted) ? undefined : Errors.unsupportedMediaType());
}

/**
 * The JSON parsers' `verify`: JSON is UTF-8 (RFC 8259), so a body in another charset's bytes, or
 * with bytes that are not UTF-8, is malformed JSON (400 `bad request`, docs/api.md 4), rather than
 * read with U+FFFD where its bytes were and stored so.
 */
export function requireUtf8(_req: IncomingMessage, _res: unknown, body: Buffer, encoding: string): void {
  if (encoding === 'utf-8' && !isUtf8(body)) throw Errors.badRequest(['body: must be UTF-8']);
}
