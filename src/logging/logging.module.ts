import { Global, Module } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { createPino, PINO } from './pino.provider';

@Global()
@Module({
  providers: [{ provide: PINO, inject: [AppConfig], useFactory: (config: AppConfig) => createPino(config.logLevel) }],
  exports: [PINO],
})
export class LoggingModule {}
