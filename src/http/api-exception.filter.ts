import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import type { Request } from 'express';
import type { Logger } from 'pino';
import { isDatabaseUnavailable } from '../database/database-errors';
import { PINO } from '../logging/pino.provider';
import { allowedMethods } from './allowed-methods';
import { ApiError, Errors } from './api-error';

/** Nest's own HttpExceptions (body parser, router, guards of libraries) by status. */
const BY_STATUS: Record<number, () => ApiError> = {
  400: () => Errors.badRequest(),
  401: Errors.unauthorized,
  413: Errors.payloadTooLarge,
  415: Errors.unsupportedMediaType,
  503: Errors.unavailable,
};

/**
 * The single exit for errors (SPEC 7): every failure leaves as `{code, message?}` with its
 * status. Unknown errors become a bare 500; their details go to the log under the request id,
 * never to the client.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(PINO) private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<ServerResponse>();
    const error = this.toApiError(exception, req);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of Object.entries(error.headers)) adapter.setHeader(res, name, value);
    adapter.reply(res, error.body, error.getStatus());
  }

  private toApiError(exception: unknown, req: Request): ApiError {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof NotFoundException) {
      // Only the router throws a bare NotFoundException: no route for this method and path.
      const path = req.originalUrl.split('?')[0];
      const allow = allowedMethods(this.adapterHost.httpAdapter.getInstance(), path);
      return allow.length > 0 ? Errors.methodNotAllowed(allow) : Errors.notFound();
    }
    // Client errors of Nest and its libraries, and their 503 (Terminus: database down).
    if (exception instanceof HttpException && (exception.getStatus() < 500 || exception.getStatus() === 503)) {
      return (BY_STATUS[exception.getStatus()] ?? Errors.badRequest)();
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({ requestId: req.id, err: summary(exception) }, 'database unavailable');
      return Errors.unavailable();
    }
    this.logger.error({ requestId: req.id, err: summary(exception) }, 'unexpected error');
    return Errors.internal();
  }
}

/** What of an error may be logged: never its parameters (they can hold secrets). */
function summary(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: String(error) };
  const { code } = error as { code?: unknown };
  return { type: error.name, code, message: error.message, stack: error.stack };
}
