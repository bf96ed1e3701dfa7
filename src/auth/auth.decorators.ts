import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiCookieAuth } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiErrorResponses } from '../http/openapi-errors';
import type { Role } from '../identity/entities/member.entity';
import { AUTH_POLICY, AuthPolicy, PLATFORM_SCHEME, SESSION_SCHEME, WALLET_SCHEME } from './auth-policy';

const policy = (value: AuthPolicy) => SetMetadata(AUTH_POLICY, value);

/** A session-cookie route for members with one of these roles; sets the OpenAPI security too. */
export const Authenticated = ({ roles }: { roles: readonly Role[] }) =>
  applyDecorators(
    policy({ kind: 'session', roles }),
    ApiCookieAuth(SESSION_SCHEME),
    ApiErrorResponses({ 401: ['unauthorized'], 403: ['no organization', 'no permission'], 503: ['unavailable'] }),
  );

/** A route for wallet-extension bearer tokens only: any cookie makes it answer 401. */
export const WalletExtension = () =>
  applyDecorators(
    policy({ kind: 'wallet-extension' }),
    ApiBearerAuth(WALLET_SCHEME),
    ApiErrorResponses({ 401: ['unauthorized'], 503: ['unavailable'] }),
  );

/** A route for the internal platform API's key only (the bearer rules of wallet extensions). */
export const PlatformApi = () =>
  applyDecorators(
    policy({ kind: 'platform' }),
    ApiBearerAuth(PLATFORM_SCHEME),
    ApiErrorResponses({ 401: ['unauthorized'], 429: ['rate limited'], 503: ['unavailable'] }),
  );

/** A route anyone may call (health). */
export const Public = () => policy({ kind: 'public' });

/** The authenticated caller, as the guard established it. */
export const Caller = createParamDecorator((_: unknown, ctx: ExecutionContext) => ctx.switchToHttp().getRequest<Request>().caller);
