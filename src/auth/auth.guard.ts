import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { Errors } from '../http/api-error';
import { AUTH_POLICY, AuthPolicy } from './auth-policy';
import { Authenticator } from './authenticator';

/** The global guard: every route states its policy, and a route that states none is refused. */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authenticator: Authenticator,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [context.getHandler(), context.getClass()]);
    const req = context.switchToHttp().getRequest<Request>();
    switch (policy?.kind) {
      case 'public':
        return true;
      case 'session':
        req.caller = await this.authenticator.session(req.headers, policy.roles);
        return true;
      case 'wallet-extension':
        req.caller = await this.authenticator.walletExtension(req.headers);
        return true;
      default:
        throw Errors.unauthorized();
    }
  }
}
