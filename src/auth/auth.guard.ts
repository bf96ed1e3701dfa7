import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { RouteMetadataReflector } from '../common/route-metadata.reflector';
import { AppConfig } from '../config/app-config';
import { DomainError, Errors } from '../common/domain-error';
import { ClientLimits } from '../rate-limit/client-limits';
import { AUTH_POLICY, AuthPolicy } from './auth-policy';
import type { Caller } from '../identity/caller';
import { Authenticator } from './authenticator';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The global guard: every route states its policy, and a route that states none is refused.
 * Around authentication it applies ClientLimits: a client address blocked for failed
 * authentications is refused first (429), each 401 counts against its address, and the
 * requests of a bearer token (wallet extension, platform key) count against that token.
 * `admit` is the same work for a middleware that must know the caller before the body is read
 * (authenticatedBody: POST {p}/events and {p}/events/batch); the guard then finds the request admitted.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly allowedOrigins: ReadonlySet<string>;

  constructor(
    private readonly reflector: RouteMetadataReflector,
    private readonly authenticator: Authenticator,
    private readonly limits: ClientLimits,
    config: AppConfig,
  ) {
    this.allowedOrigins = new Set(config.allowedOrigins);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, [context.getHandler(), context.getClass()]);
    const req = context.switchToHttp().getRequest<Request>();
    if (policy?.kind === 'public') return true;
    // Admitted ahead of its body under a policy of this kind: authenticated and counted once.
    if (req.caller !== undefined && req.caller.kind === policy?.kind) return true;
    await this.admit(req, policy);
    return true;
  }

  /** Authenticates `req` under `policy`, within the limits around authentication, and puts the caller on it. */
  async admit(req: Request, policy: AuthPolicy | undefined): Promise<void> {
    // An address that failed authentication too often is refused before any lookup.
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    await this.limits.refuseBlockedAddress(address);
    try {
      req.caller = await this.authenticate(req, policy);
    } catch (error) {
      if (error instanceof DomainError && error.status === 401) await this.limits.countAuthFailure(address);
      throw error;
    }
    if (req.caller.kind !== 'session') await this.limits.countBearerToken(req.caller.kind, req.caller.tokenKey);
  }

  private async authenticate(req: Request, policy: AuthPolicy | undefined): Promise<Caller> {
    switch (policy?.kind) {
      case 'session':
        // A browser sends the session cookie along with any cross-site request: a write from
        // a page whose origin is not allowed is refused before the cookie is even looked at.
        if (!SAFE_METHODS.has(req.method) && req.headers.origin !== undefined && !this.allowedOrigins.has(req.headers.origin)) {
          throw Errors.forbiddenOrigin();
        }
        return this.authenticator.session(req.headers, policy.roles);
      case 'wallet-extension':
        return this.authenticator.walletExtension(req);
      case 'platform':
        return this.authenticator.platform(req);
      default:
        throw Errors.unauthorized();
    }
  }
}
