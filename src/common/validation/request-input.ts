import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import type { IncomingHttpHeaders } from 'node:http';

/** What of a request its route validates: the path's parameters, the query string, the body and the headers. */
export interface RequestParts {
  readonly params: Readonly<Record<string, unknown>>;
  readonly query: Readonly<Record<string, unknown>>;
  readonly body: unknown;
  readonly headers: IncomingHttpHeaders;
}

/**
 * A route's input through its one validation pipe, `@RequestInput(CreateWebhookPipe) input`: the
 * pipe checks the parts in the order docs/api.md gives for the route and answers the first
 * failure. One pipe over the whole request rather than one per parameter, because Nest runs the
 * parameters' pipes last parameter first, an order nobody reads in a handler's signature.
 */
export const RequestInput = createParamDecorator((_: unknown, context: ExecutionContext): RequestParts => {
  const { params, query, body, headers } = context.switchToHttp().getRequest<Request>();
  return { params, query: query as Record<string, unknown>, body: body as unknown, headers };
});
