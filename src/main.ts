import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './app.setup';
import { loadAppConfig } from './config/app-config';
import { ConfigError } from './config/environment';
import { API_VARIABLES, listenErrorOf } from './config/listen-error';
import { trustedRangesForLog } from './config/trusted-ranges';
import { ApiExpressAdapter } from './http/http-adapter';
import { NestPinoLogger } from './logging/nest-logger';
import { createPino } from './logging/pino.provider';

async function bootstrap(): Promise<void> {
  // Validated before anything else, so that a bad variable is one clear line.
  const config = loadAppConfig();
  const logger = createPino(config.logLevel);
  for (const warning of config.warnings) logger.warn(warning);
  // abortOnError false: a failed start (say, no database) reaches the catch below, instead of
  // Nest exiting on its own.
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, logger),
    new ApiExpressAdapter(config.requestTimeoutMs),
    {
      bodyParser: false,
      logger: new NestPinoLogger(logger),
      abortOnError: false,
    },
  );
  configureApp(app);
  await app.listen(config.port, config.host).catch((error: unknown) => {
    throw listenErrorOf(error, { port: config.port, host: config.host, variables: API_VARIABLES });
  });
  // The port bound: PORT=0 asks the system for a free one, and the operator learns it here.
  const { port } = app.getHttpServer().address() as AddressInfo;
  logger.info({ port, host: config.host, database: config.database.type }, 'listening');
  // docs/api.md 10.4: the operator sees which ranges count as public beside the public ones.
  if (config.trustedCidrs.length > 0) {
    logger.info(
      { trustedCidrs: trustedRangesForLog(config.trustedCidrs) },
      'TRUSTED_CIDRS: webhooks may point to these ranges, on these ports',
    );
  }

  // SIGTERM: stop accepting, let requests in flight finish, close the pool, exit 0.
  process.once('SIGTERM', () => {
    logger.info('SIGTERM: shutting down');
    app
      .close()
      .then(() => logger.flush(() => process.exit(0)))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        logger.flush(() => process.exit(1));
      });
  });
}

bootstrap().catch((error: unknown) => {
  const line =
    error instanceof ConfigError ? `invalid configuration: ${error.message}` : `start failed: ${(error as Error)?.message ?? error}`;
  process.stderr.write(`${line}\n`);
  process.exit(1);
});
