import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Inject, NotFoundException } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ServerResponse } from 'node:http';
import type { Request } from 'express';
import type { Logger } from 'pino';
import { DomainError, Errors } from '../common/domain-error';
import { isDatabaseUnavailable } from '../database/database-errors';
import { PINO } from '../logging/pino.provider';
import { ErrorAnswer, errorAnswer } from './error-answer';
import { ApiExpressAdapter } from './http-adapter';

/** Nest's own HttpExceptions (body parser, router, guards of libraries) by status. */
const BY_STATUS: Record<number, () => DomainError> = {
  400: () => Errors.badRequest(),
  401: Errors.unauthorized,
  413: Errors.payloadTooLarge,
  415: Errors.unsupportedMediaType,
  503: Errors.unavailable,
};

/**
 * The single exit for errors (docs/api.md 7): every failure leaves as `{code, message?}` with
 * its status. DomainErrors say what to answer; Nest's own exceptions and the database's
 * failures are translated; anything else is a bare 500, its details in the log under the
 * request id, never sent to the client.
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
    const answer = this.answerFor(exception, req);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const adapter = this.adapterHost.httpAdapter;
    for (const [name, value] of Object.entries(answer.headers)) adapter.setHeader(res, name, value);
    adapter.reply(res, answer.body, answer.status);
  }

  private answerFor(exception: unknown, req: Request): ErrorAnswer {
    if (exception instanceof DomainError) return errorAnswer(exception);
    // Ours, thrown inside a library's middleware (the JSON parser's verify), comes back wrapped by Nest's adapter.
    if (exception instanceof HttpException && exception.cause instanceof DomainError) return errorAnswer(exception.cause);
    if (exception instanceof NotFoundException) {
      // Only the router throws a bare NotFoundException: no route for this method and path.
      const allow = (this.adapterHost.httpAdapter as ApiExpressAdapter).allowedMethods(req.originalUrl.split('?')[0]);
      return allow.length > 0 ? errorAnswer(Errors.methodNotAllowed(), { Allow: allow.join(', ') }) : errorAnswer(Errors.notFound());
    }
    // Client errors of Nest and its libraries (the body parser's 400 and 413, ...).
    if (exception instanceof HttpException && (exception.getStatus() < 500 || exception.getStatus() === 503)) {
      return errorAnswer((BY_STATUS[exception.getStatus()] ?? Errors.badRequest)());
    }
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({ requestId: req.id, err: summary(exception) }, 'database unavailable');
      return errorAnswer(Errors.unavailable());
    }
    this.logger.error({ requestId: req.id, err: summary(exception) }, 'unexpected error');
    return errorAnswer(Errors.internal());
  }
}

/** What of an error may be logged: never its parameters (they can hold secrets). */
function summary(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: String(error) };
  const { code } = error as { code?: unknown };
  return { type: error.name, code, message: error.message, stack: error.stack };
}
