import { CanActivate, ExecutionContext, Inject, Injectable, mixin, Type } from '@nestjs/common';
import type { Request } from 'express';
import type { SessionCaller } from '../../identity/caller';
import { ClientLimits } from '../../rate-limit/client-limits';

/**
 * `POST …/test` and `POST …/deliveries/{id}/retry` count against a limit per webhook of their
 * own (RATE_LIMIT_ACTIONS_PER_WEBHOOK a window, each): 429 `rate limited` with Retry-After, and
 * nothing stored (docs/api.md 10.10). The guard of one action; it runs after authentication,
 * before the name is validated.
 */
export function WebhookActionLimitGuard(action: 'test' | 'retry'): Type<CanActivate> {
  @Injectable()
  class ActionLimitGuard implements CanActivate {
    constructor(@Inject(ClientLimits) private readonly limits: ClientLimits) {}

    async canActivate(context: ExecutionContext): Promise<boolean> {
      const req = context.switchToHttp().getRequest<Request & { caller: SessionCaller }>();
      await this.limits.countWebhookAction(req.caller.organizationId, String(req.params.name), action);
      return true;
    }
  }
  return mixin(ActionLimitGuard);
}
