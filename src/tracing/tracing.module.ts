import { Global, Module } from '@nestjs/common';
import { Tracing } from './tracing';

/** Spans and their export (docs/api.md 10.17), for every feature that traces its work. */
@Global()
@Module({ providers: [Tracing], exports: [Tracing] })
export class TracingModule {}
