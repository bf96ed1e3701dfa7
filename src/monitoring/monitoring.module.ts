import { Module } from '@nestjs/common';
import { DispatchModule } from '../delivery/dispatch/dispatch.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { MetricsModule } from '../metrics/metrics.module';
import { MetricsServer } from './metrics-server';
import { QueueGauges } from './queue-gauges';

/** The HTTP application's METRICS_PORT listener and the queue's periodic reading; the CLI has neither. */
@Module({ imports: [MetricsModule, DispatchModule, WebhooksModule], providers: [MetricsServer, QueueGauges] })
export class MonitoringModule {}
