import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics';
import type { TraceContext } from '../tracing/trace-context';
import type { Tracing } from '../tracing/tracing';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: the caller's `X-Request-Id` when it is sane, else a new UUID. */
    id: string;
    /** What the request's work hangs from in its trace (docs/api.md 10.17): its span's context (Tracing.requestSpan). */
    trace?: TraceContext;
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * One JSON line per request (docs/api.md 9): id, method, route, status and duration. Written by hand
 * rather than with pino-http so that no header, cookie or query string is ever serialized. The
 * same moment counts the request in the metrics (route pattern, method, status, duration) and
 * ends its span (docs/api.md 10.17), begun when it arrived under the caller's `traceparent`:
 * `req.trace` is what the request's own work hangs from (an event's acceptance).
 */
export function requestLog(logger: Logger, metrics: Metrics, tracing: Tracing) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const given = req.headers['x-request-id'];
    req.id = typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const span = tracing.requestSpan(req.method, req.headers);
    req.trace = span.context;
    // 'close' comes after 'finish', and also when the client goes away first: one line either way.
    res.once('close', () => {
      const status = res.statusCode;
      const route = routeOf(req);
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      metrics.httpRequest(route, req.method, status, durationMs / 1000);
      span.end(route, status);
      const level = status >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          requestId: req.id,
          method: req.method,
          route,
          path: loggedPath(req.originalUrl.split('?')[0]),
          status,
          durationMs,
          ...(res.writableFinished ? {} : { aborted: true }),
        },
        'request',
      );
    });
    next();
  };
}

/** A segment long enough to be a token (ours are 43 base64url characters or more). */
const LONG_SEGMENT = /[^/]{20,}/;
/** What a long segment of a real path is: a webhook name (docs/api.md 5). */
const NAME_LIKE = /^[a-z0-9-]+$/;

/**
 * The path as logged (docs/api.md 9: tokens never in a log line): a segment of 20 characters or
 * more that is not name-like is `[redacted]`, so a token a client put in a path (`/api/<token>`,
 * `/api/webhook/<token>`) is not written down. Real paths pass unchanged at the cost of one test.
 */
export function loggedPath(path: string): string {
  if (!LONG_SEGMENT.test(path)) return path;
  return path
    .split('/')
    .map((segment) => (segment.length >= 20 && !NAME_LIKE.test(segment) ? '[redacted]' : segment))
    .join('/');
}

/** The matched route pattern; null when no route matched (Nest's catch-all is not a route). */
export function routeOf(req: Pick<Request, 'route'>): string | null {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  return typeof path === 'string' && path !== '*path' ? path : null;
}
