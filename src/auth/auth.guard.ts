import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { RouteMetadataReflector } from '../common/route-metadata.reflector';
import { AppConfig } from '../config/app-config';
import { Errors } from '../common/domain-error';
import { AUTH_POLICY, AuthPolicy } from './auth-policy';
import { Authenticator } from './authenticator';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The global guard: every route states its policy, and a route that states none is refused. */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly allowedOrigins: ReadonlySet<string>;

  constructor(
    private readonly reflector: RouteMetadataReflector,
    private readonly authenticator: Authenticator,
    config: AppConfig,
  ) {
    this.allowedOrigins = new Set(config.allowedOrigins);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [context.getHandler(), context.getClass()]);
    const req = context.switchToHttp().getRequest<Request>();
    switch (policy?.kind) {
      case 'public':
        return true;
      case 'session':
        // A browser sends the session cookie along with any cross-site request: a write from
        // a page whose origin is not allowed is refused before the cookie is even looked at.
        if (!SAFE_METHODS.has(req.method) && req.headers.origin !== undefined && !this.allowedOrigins.has(req.headers.origin)) {
          throw Errors.forbiddenOrigin();
        }
        req.caller = await this.authenticator.session(req.headers, policy.roles);
        return true;
      case 'wallet-extension':
        req.caller = await this.authenticator.walletExtension(req);
        return true;
      default:
        throw Errors.unauthorized();
    }
  }
}
