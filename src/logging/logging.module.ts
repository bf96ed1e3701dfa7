import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { PINO } from './pino.provider';

/** Provides the process's pino logger, created before Nest so that Nest logs through it too. */
@Global()
@Module({})
export class LoggingModule {
  static forRoot(logger: Logger): DynamicModule {
    return { module: LoggingModule, providers: [{ provide: PINO, useValue: logger }], exports: [PINO] };
  }
}
