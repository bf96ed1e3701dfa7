import { Module } from '@nestjs/common';
import { Metrics } from './metrics';

/** The Prometheus instruments, for the features that count what happens in them (the CLI's count is never served). */
@Module({ providers: [Metrics], exports: [Metrics] })
export class MetricsModule {}
