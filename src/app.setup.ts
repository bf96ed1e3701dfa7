import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import swaggerUiAssets from 'swagger-ui-dist/absolute-path.js';
import type { Logger } from 'pino';
import { AppConfig } from './config/app-config';
import { GracefulShutdown } from './http/graceful-shutdown';
import { ApiExpressAdapter } from './http/http-adapter';
import { fixedHeaders, inTurn } from './http/fixed-headers';
import { BODY_LIMIT, EVENT_BATCH_BODY_LIMIT, EVENT_BODY_LIMIT, JSON_TYPES, jsonBody, requireJsonBody } from './http/json-body';
import { keepUndecodablePath } from './http/undecodable-path';
import { openApiDocument } from './openapi/openapi-document';
import { PINO } from './logging/pino.provider';
import { requestLog } from './logging/request-log.middleware';
import { Metrics } from './metrics/metrics';
import { Tracing } from './tracing/tracing';
import { AuthGuard } from './auth/auth.guard';
import { authenticatedBody } from './auth/authenticated-body';

/**
 * Everything about the HTTP application that is not a module: used by main.ts and by the e2e
 * tests, so that the tests run the very pipeline production runs.
 */
export function configureApp(app: NestExpressApplication): void {
  const logger = app.get<Logger>(PINO);
  app.disable('x-powered-by');
  app.set('etag', false);
  // req.ip is the client: the peer, or who X-Forwarded-For names when the peer is a trusted proxy.
  app.set('trust proxy', app.get(AppConfig).rateLimits.trustedProxies);
  const adapter = app.getHttpAdapter();
  if (!(adapter instanceof ApiExpressAdapter)) throw new Error('the application must run on ApiExpressAdapter');
  app.use(
    inTurn(
      fixedHeaders(helmet()),
      requestLog(logger, app.get(Metrics), app.get(Tracing)),
      app.get(GracefulShutdown).middleware,
      requireJsonBody,
      keepUndecodablePath,
    ),
  );
  // Events may be up to 256 KiB, and a batch of them 1 MiB, so they are read only for a known
  // platform key (the guard's checks, ahead of the parser; each mount gates its own path only);
  // the parser that reads a body first leaves it to the next.
  const events = `${app.get(AppConfig).apiPrefix}/events`;
  const platformBody = (limit: string) =>
    authenticatedBody(app.get(AuthGuard), { kind: 'platform' }, jsonBody(limit, JSON_TYPES.slice(0, 1)));
  app.use(`${events}/batch`, platformBody(EVENT_BATCH_BODY_LIMIT));
  app.use(events, platformBody(EVENT_BODY_LIMIT));
  app.use(jsonBody(BODY_LIMIT, JSON_TYPES));
  setUpOpenApi(app);
}

/** Built on the first request for it, not at start: it is a few hundred ms of cold start. */
function setUpOpenApi(app: NestExpressApplication): void {
  // Swagger UI's assets named here, not left to @nestjs/swagger's createRequire that the bundler
  // cannot see: swagger-ui-dist is then among the image's runtime packages (scripts/build.mjs).
  SwaggerModule.setup('docs', app, () => openApiDocument(app), {
    jsonDocumentUrl: 'docs/openapi.json',
    customSwaggerUiPath: swaggerUiAssets(),
  });
}
