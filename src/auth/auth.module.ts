import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RouteMetadataReflector } from '../common/route-metadata.reflector';
import { IdentityModule } from '../identity/identity.module';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator';
import { PlatformKeyUses } from './platform-key-uses';

@Module({
  imports: [IdentityModule, RateLimitModule],
  providers: [Authenticator, PlatformKeyUses, RouteMetadataReflector, { provide: APP_GUARD, useClass: AuthGuard }],
})
export class AuthModule {}
