import type { NextFunction, Request, Response } from 'express';

/**
 * The segment decoded, or undefined when it does not decode. Its result is used, not only its
 * throwing: the bundler takes `decodeURIComponent` for a pure function and dropped a call whose
 * value went unused, so that every segment "decoded" in dist/ (test/operations/server-process).
 */
const decoded = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
};

/**
 * A path segment that does not decode (a `%` without two hex digits after it, or escapes that
 * are not UTF-8: `/webhook/%ZZ`, `/webhook/%E0%A4`) goes on to its route as the text that was
 * sent, its `%` escaped, rather than failing in Express's router with a 400 before
 * authentication. So docs/api.md 4's order holds for it as for any other path: 401, 403, then
 * the parameter's own rule (`invalid name` for a webhook's name). The request log keeps the path
 * as sent (`originalUrl`).
 */
export function keepUndecodablePath(req: Request, _res: Response, next: NextFunction): void {
  const url = req.url;
  if (!url.includes('%')) return next();
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const kept = path
    .split('/')
    .map((segment) => (decoded(segment) === undefined ? segment.replaceAll('%', '%25') : segment))
    .join('/');
  if (kept !== path) req.url = kept + (query === -1 ? '' : url.slice(query));
  next();
}
