import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { SessionCaller } from '../../identity/caller';
import { ClientLimits } from '../../rate-limit/client-limits';

/**
 * `POST …/test` and `POST …/deliveries/{id}/retry` count against a limit per webhook of their
 * own (RATE_LIMIT_ACTIONS_PER_WEBHOOK a window, each): 429 `rate limited` with Retry-After, and
 * nothing stored (docs/api.md 10.10). Runs after authentication, before the name is validated.
 */
@Injectable()
export class WebhookActionLimitGuard implements CanActivate {
  constructor(private readonly limits: ClientLimits) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { caller: SessionCaller }>();
    const action = context.getHandler().name === 'test' ? 'test' : 'retry';
    await this.limits.countWebhookAction(req.caller.organizationId, String(req.params.name), action);
    return true;
  }
}
