import { BeforeApplicationShutdown, Injectable } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { Errors } from '../common/domain-error';

/**
 * SIGTERM (docs/api.md 9): requests in flight finish, but no connection is kept alive past its
 * answer, and a request that arrives on a kept-alive connection after the signal answers 503
 * `unavailable`. Nest calls `beforeApplicationShutdown` before it closes the HTTP server, which
 * then waits for the connections still serving, and only then closes the database pool.
 */
@Injectable()
export class GracefulShutdown implements BeforeApplicationShutdown {
  private closing = false;
  private readonly inFlight = new Set<Response>();

  readonly middleware = (_req: Request, res: Response, next: NextFunction): void => {
    if (this.closing) {
      res.setHeader('Connection', 'close');
      return next(Errors.unavailable());
    }
    this.inFlight.add(res);
    res.once('close', () => this.inFlight.delete(res));
    next();
  };

  beforeApplicationShutdown(): void {
    this.closing = true;
    for (const res of this.inFlight) {
      if (!res.headersSent) res.setHeader('Connection', 'close');
    }
  }
}
