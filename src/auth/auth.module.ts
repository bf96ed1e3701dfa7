import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { IdentityModule } from '../identity/identity.module';
import { AuthGuard } from './auth.guard';
import { Authenticator } from './authenticator';

@Module({
  imports: [IdentityModule],
  providers: [Authenticator, { provide: APP_GUARD, useClass: AuthGuard }],
})
export class AuthModule {}
