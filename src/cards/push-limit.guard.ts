import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import type { WalletCaller } from '../identity/caller';
import { ClientLimits } from '../rate-limit/client-limits';

/**
 * `POST {p}/card/{id}/provisioning/apple|google` count against the caller's user limit of 10 a
 * minute (docs/api.md 6.1): 429 `rate limited` with Retry-After. After authentication, before the
 * card is looked up, so that a request for no card counts too; the entries list is not counted.
 */
@Injectable()
export class PushLimitGuard implements CanActivate {
  constructor(private readonly limits: ClientLimits) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { caller: WalletCaller }>();
    await this.limits.countPush(req.caller.userId);
    return true;
  }
}
