import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * The headers every answer carries, worked out once at start: those a header-setting
 * middleware such as helmet's would set (its configuration, its values), and
 * `Cache-Control: no-store` (card provisioning must never be cached, docs/api.md 6; webhook creation
 * returns a secret shown once; the rest is per-caller data). Applied in one loop per request
 * instead of through a dozen nested middlewares.
 */
export function fixedHeaders(headerMiddleware: Middleware): RequestHandler {
  const headers = new Map<string, string>();
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => headers.set(name, String(value)),
    removeHeader: (name: string) => headers.delete(name),
    getHeader: (name: string) => headers.get(name),
  } as unknown as ServerResponse;
  headerMiddleware({ headers: {} } as IncomingMessage, recorder, () => undefined);
  headers.set('Cache-Control', 'no-store');
  const entries = [...headers];
  return (_req: Request, res: Response, next: NextFunction) => {
    for (const [name, value] of entries) res.setHeader(name, value);
    next();
  };
}

/** Express middlewares run in turn as one layer: what every request goes through, cheaply. */
export function inTurn(...middlewares: RequestHandler[]): RequestHandler {
  return (req, res, next) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined || index === middlewares.length) return next(error);
      void middlewares[index++](req, res, step);
    };
    step();
  };
}
