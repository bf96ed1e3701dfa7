import { applyDecorators, createParamDecorator, ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';

/**
 * A route's parameter: what its work hangs from in the request's trace (docs/api.md 10.17), as
 * the request log's span left it on the request (`req.trace`): the producer's headers are read
 * once per request, there.
 */
export const RequestTrace = createParamDecorator((_: unknown, ctx: ExecutionContext) => ctx.switchToHttp().getRequest<Request>().trace);

/** W3C Trace Context in the OpenAPI document: a producer's trace, which its events' attempts join; a malformed one is ignored. */
export const TraceContextHeaders = () =>
  applyDecorators(
    ApiHeader({ name: 'traceparent', required: false, description: 'W3C Trace Context: the trace every attempt of the events joins' }),
    ApiHeader({ name: 'tracestate', required: false, description: 'W3C Trace Context: passed on to every attempt as received' }),
  );
