import { createParamDecorator, ExecutionContext, Inject, Injectable, mixin, PipeTransform, Type } from '@nestjs/common';
import type { Request } from 'express';
import { validateParameters } from '../common/validation/validate-input';
import type { WalletCaller } from '../identity/caller';
import { CardPathDto } from './dto/push-provisioning.dto';
import type { PushableCard } from './issuer.port';
import type { PushRequests, Wallet } from './processors/processor';
import { PushProvisioningService } from './push-provisioning.service';
import { PUSH_REQUESTS } from './push-requests';

/** What a push's pipe reads: who calls, the path's card id and the body. */
export interface PushParts {
  readonly userId: number;
  readonly params: Readonly<Record<string, unknown>>;
  readonly body: unknown;
}

/** A push request, checked: the caller's card and the wallet's request. */
export interface PushInput<W extends Wallet> {
  readonly card: PushableCard;
  readonly request: PushRequests[W];
}

/** The route's input through its pipe: `@PushRequestInput(PushRequestPipe('apple'))`. */
export const PushRequestInput = createParamDecorator((_: unknown, context: ExecutionContext): PushParts => {
  const { caller, params, body } = context.switchToHttp().getRequest<Request & { caller: WalletCaller }>();
  return { userId: caller.userId, params, body: body as unknown };
});

/**
 * The checks of a push after the bearer token (401) and the user's limit (429), in docs/api.md
 * 6.1's order: the card (404 `no card`: malformed, unknown, someone else's or closed), its issuer
 * (403 `no issuer`), then the body (400 `bad request` naming each field). The card is looked up
 * before the body is read, as the contract orders them, which is why this pipe reads the database.
 */
export function PushRequestPipe<W extends Wallet>(wallet: W): Type<PipeTransform<PushParts, Promise<PushInput<W>>>> {
  @Injectable()
  class WalletPushPipe implements PipeTransform<PushParts, Promise<PushInput<W>>> {
    constructor(@Inject(PushProvisioningService) private readonly provisioning: PushProvisioningService) {}

    async transform({ userId, params, body }: PushParts): Promise<PushInput<W>> {
      const { id } = validateParameters(CardPathDto, params);
      const card = await this.provisioning.cardToPush(userId, id);
      return { card, request: (PUSH_REQUESTS[wallet] as (body: unknown) => PushRequests[W])(body) };
    }
  }
  return mixin(WalletPushPipe);
}
