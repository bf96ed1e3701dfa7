import { Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { CaresHostResolver, HostResolver } from './host-resolver';
import { AddressPolicy } from './public-address';
import { UrlResolution } from './url-resolution';

@Module({
  providers: [
    { provide: HostResolver, useClass: CaresHostResolver },
    { provide: AddressPolicy, inject: [AppConfig], useFactory: (config: AppConfig) => new AddressPolicy(config.trustedCidrs) },
    UrlResolution,
  ],
  exports: [UrlResolution, AddressPolicy],
})
export class UrlSafetyModule {}
