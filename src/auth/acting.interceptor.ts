import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import type { Request } from 'express';
import type { Observable } from 'rxjs';
import { actingAs } from '../identity/actor';

/**
 * A session's request runs as its user (identity/actor.ts): the changes it makes are recorded
 * as theirs (docs/api.md 10.9). After the guard, which put the caller on the request. Nest binds
 * the handler to the async context in which `handle` is called, so calling it inside `actingAs`
 * is enough. The other callers (a wallet extension, a platform key) change nothing an audit trail
 * records.
 */
@Injectable()
export class ActingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const caller = context.switchToHttp().getRequest<Request>().caller;
    if (caller?.kind !== 'session') return next.handle();
    return actingAs({ kind: 'user', userId: caller.userId }, () => next.handle());
  }
}
