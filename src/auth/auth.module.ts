import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { IdentityModule } from '../identity/identity.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator';
import { PlatformKeyUses } from './platform-key-uses';

@Module({
  // RateLimitModule also gives the guard its RouteMetadataReflector: one cache for every guard.
  imports: [IdentityModule, RateLimitModule],
  // The guard is also a provider of its own: authenticatedBody (app.setup.ts) admits with it.
  providers: [Authenticator, PlatformKeyUses, AuthGuard, { provide: APP_GUARD, useExisting: AuthGuard }],
  exports: [AuthGuard],
})
export class AuthModule {}
