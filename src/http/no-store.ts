import type { NextFunction, Request, Response } from 'express';

/**
 * `Cache-Control: no-store` on every answer, errors included, set before anything else can
 * answer. Card provisioning must never be cached (SPEC 6), webhook creation returns a secret
 * shown once, and the rest is per-caller data: nothing this service says is worth caching.
 */
export function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', 'no-store');
  next();
}
