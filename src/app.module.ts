import { DynamicModule, Module } from '@nestjs/common';
import type { Logger } from 'pino';
import { APP_FILTER, RouterModule } from '@nestjs/core';
import { AuditModule } from './audit/audit.module';
import { AuthModule } from './auth/auth.module';
import { CardsModule } from './cards/cards.module';
import { AppConfig } from './config/app-config';
import { ConfigModule } from './config/config.module';
import { CryptoModule } from './crypto/crypto.module';
import { DatabaseModule } from './database/database.module';
import { DeliveryModule } from './delivery/delivery.module';
import { EventsModule } from './delivery/events/events.module';
import { DeliveryLogModule } from './delivery/log/delivery-log.module';
import { RecoveryModule } from './delivery/recovery/recovery.module';
import { HealthModule } from './health/health.module';
import { ApiExceptionFilter } from './http/api-exception.filter';
import { GracefulShutdown } from './http/graceful-shutdown';
import { LoggingModule } from './logging/logging.module';
import { MonitoringModule } from './monitoring/monitoring.module';
import { TracingModule } from './tracing/tracing.module';
import { WebhooksModule } from './webhooks/webhooks.module';

/**
 * The modules whose controllers are served under API_PREFIX (a route prefix is a module's own, not
 * its imports': the delivery feature's controllers are its parts'); /health and /docs stay at the root.
 */
const API_MODULES = [WebhooksModule, CardsModule, EventsModule, DeliveryLogModule, RecoveryModule, AuditModule];

/** The HTTP service, for one validated configuration and the process's logger. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, logger: Logger): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggingModule.forRoot(logger),
        DatabaseModule,
        CryptoModule,
        TracingModule,
        AuthModule,
        HealthModule,
        MonitoringModule,
        DeliveryModule,
        ...API_MODULES,
        // A route prefix rather than a global prefix: Nest's not-found handler then covers
        // every path, so unknown routes outside the prefix also answer {"code":"not found"}.
        RouterModule.register(API_MODULES.map((module) => ({ path: config.apiPrefix || '/', module }))),
      ],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }, GracefulShutdown],
    };
  }
}
