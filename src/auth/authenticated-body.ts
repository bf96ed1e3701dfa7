import type { RequestHandler } from 'express';
import type { AuthGuard } from './auth.guard';
import type { AuthPolicy } from './auth-policy';

/**
 * For a route that takes larger bodies than the others (POST {p}/events: 256 KiB, docs/api.md
 * 10.1; POST {p}/events/batch: 1 MiB, 10.1.1), its own parser behind authentication: the caller is admitted first, by the AuthGuard's
 * own `admit` (docs/api.md 4's bearer rules, the blocked-address 429, the 401 counted against the
 * address, the per-key 429), and only then is the body read. A refused request answers without
 * its body ever being read, let alone parsed, whatever size it declares; so nobody unknown gets
 * a large, deeply nested body parsed. The guard later finds the caller in place and does not
 * count it again. Only POST on the route itself (mounted at its path, with or without a trailing
 * slash, as Express routes it) is gated; every other request goes on to the 16 KiB parser of
 * all routes, so the 415 and 413 of docs/api.md 4 still answer before authentication there.
 */
export function authenticatedBody(guard: AuthGuard, policy: AuthPolicy, parser: RequestHandler): RequestHandler {
  return (req, res, next) => {
    if (req.method !== 'POST' || req.path !== '/') return next();
    guard.admit(req, policy).then(
      () => parser(req, res, next),
      (error: unknown) => next(error),
    );
  };
}
