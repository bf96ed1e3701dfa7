import type { Application } from 'express';

interface RouteLayer {
  match(path: string): unknown;
  route?: { methods: Record<string, boolean> };
}

/**
 * The methods the application's routes accept for a path, from Express's own route table:
 * what turns a 404 into a 405 when the path exists under another method.
 */
export function allowedMethods(app: Application, path: string): string[] {
  const stack = (app as unknown as { router?: { stack: RouteLayer[] } }).router?.stack ?? [];
  const methods = new Set<string>();
  for (const layer of stack) {
    if (!layer.route || !layer.match(path)) continue;
    for (const method of Object.keys(layer.route.methods)) methods.add(method.toUpperCase());
  }
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}
