import type { IncomingMessage } from 'node:http';
import { hasBody } from './json-body';

/** A Nest route handler as the router registers it: `(req, res, next)`. */
export type RouteHandler = (req: IncomingMessage, res: unknown, next: (error?: unknown) => void) => unknown;

export interface PreparedMatch {
  readonly handler: RouteHandler;
  /** The route's pattern, as Express would report it (`req.route.path`). */
  readonly pattern: string;
  readonly params: Record<string, string>;
}

interface Route {
  readonly pattern: string;
  /**
   * Per segment: the literal text (lower case), or the name of a parameter. Undefined for a
   * pattern with more than that (a wildcard, an optional part): it may match anything.
   */
  readonly segments?: readonly ({ literal: string } | { param: string })[];
  /** Undefined: a route only Express may serve (it stands in the table to keep Express's order). */
  readonly handler?: RouteHandler;
}

const PARAM = /^:([A-Za-z_$][\w$]*)$/;
const PLAIN_SEGMENT = /^[^%?#:*{}()\\]*$/;
/** A query string, an escape, an empty or dot segment, or a trailing slash (but for `/` itself). */
const NOT_PLAIN = /[?%#]|\/\/|\/\.\.?(\/|$)|.\/$/;

/**
 * The GET routes of the application, matched without Express's router: what made a read cost
 * more than twice the raw baseline (docs/performance.md).
 *
 * Only the plain form of a request is matched here: GET, no body, a path without query string,
 * percent-escapes, a trailing slash, or empty or dot segments. Everything else (HEAD,
 * `?x=1`, `/api/webhook/`, an escaped name) goes to Express, whose answer is the same, only
 * slower. Within that form the matching is Express's own: literals compared without regard to
 * case, a `:param` taking one non-empty segment, routes tried in the order they were
 * registered. A route that Express alone may serve (not a Nest handler, or a pattern with more
 * than literals and `:params`) still takes its turn: a request it matches goes to Express.
 */
export class PreparedRoutes {
  private readonly routes: Route[] = [];

  add(pattern: string, handler: RouteHandler | undefined): void {
    const parts = pattern.split('/');
    const simple = parts.every((part) => PARAM.test(part) || PLAIN_SEGMENT.test(part));
    const segments = simple
      ? parts.map((part) => {
          const param = PARAM.exec(part);
          return param ? { param: param[1] } : { literal: part.toLowerCase() };
        })
      : undefined;
    this.routes.push({ pattern, segments, handler: simple ? handler : undefined });
  }

  match(req: IncomingMessage): PreparedMatch | undefined {
    if (req.method !== 'GET' || hasBody(req)) return undefined;
    const path = req.url ?? '';
    if (!path.startsWith('/') || NOT_PLAIN.test(path)) return undefined;
    const parts = path.split('/');
    for (const route of this.routes) {
      if (route.segments === undefined) return undefined;
      const params = matchSegments(route.segments, parts);
      if (params === undefined) continue;
      return route.handler === undefined ? undefined : { handler: route.handler, pattern: route.pattern, params };
    }
    return undefined;
  }
}

function matchSegments(segments: NonNullable<Route['segments']>, parts: readonly string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const segment = segments[i];
    if ('literal' in segment) {
      if (segment.literal !== parts[i].toLowerCase()) return undefined;
    } else {
      if (parts[i] === '') return undefined;
      params[segment.param] = parts[i];
    }
  }
  return params;
}
