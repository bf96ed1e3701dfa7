import { match } from 'path-to-regexp';

type Matcher = (path: string) => unknown;

/**
 * The methods each route pattern accepts, recorded as the routes are registered with the
 * adapter, and matched as Express's router matches (path-to-regexp, case-sensitive as
 * ApiExpressAdapter makes it, a trailing slash allowed): what turns a 404 into a 405 when the
 * path exists under another method.
 */
export class RouteMethods {
  private readonly routes: { readonly method: string; readonly matches: Matcher }[] = [];

  add(method: string, pattern: string): void {
    // Parameters are not decoded: only whether the path has this route matters, and decoding a
    // segment such as `%ZZ` throws (a URIError that took a listener outside Express down).
    this.routes.push({ method: method.toUpperCase(), matches: match(pattern, { sensitive: true, trailing: true, decode: false }) });
  }

  /** Sorted; HEAD wherever GET is. Empty when no route has this path. Never throws, whatever the path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const { method, matches } of this.routes) {
      if (matches(path) !== false) methods.add(method);
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}
