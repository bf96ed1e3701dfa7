import { Module } from '@nestjs/common';
import { CaresHostResolver, HostResolver } from './host-resolver';
import { UrlResolution } from './url-resolution';

@Module({
  providers: [{ provide: HostResolver, useClass: CaresHostResolver }, UrlResolution],
  exports: [UrlResolution],
})
export class UrlSafetyModule {}
