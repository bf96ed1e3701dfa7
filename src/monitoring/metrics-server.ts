import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { collectDefaultMetrics } from 'prom-client';
import type { Logger } from 'pino';
import { AppConfig } from '../config/app-config';
import { listenErrorOf, METRICS_VARIABLES } from '../config/listen-error';
import { PINO } from '../logging/pino.provider';
import { Metrics } from '../metrics/metrics';

/** A scrape is a few kilobytes: a client that takes longer than this is not Prometheus. */
const REQUEST_TIMEOUT_MS = 10_000;

/**
 * `GET /metrics` in the Prometheus text format on a listener of its own, METRICS_PORT on
 * METRICS_HOST (docs/api.md 9), started with the application and closed at its shutdown; anything
 * else there is 404. Never on the public port, and on loopback unless the operator names another
 * address: nothing of the API's pipeline (authentication, limits) applies to it, so it must not
 * follow HOST onto every interface (issue 26). A plain node:http server: a scrape needs no framework.
 */
@Injectable()
export class MetricsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | undefined;

  constructor(
    private readonly metrics: Metrics,
    private readonly config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {}

  /** The port it listens on; undefined when METRICS_PORT is unset. */
  get port(): number | undefined {
    return this.address?.port;
  }

  /** The address it listens on; undefined when METRICS_PORT is unset. */
  get host(): string | undefined {
    return this.address?.address;
  }

  private get address(): AddressInfo | undefined {
    return (this.server?.address() as AddressInfo | null) ?? undefined;
  }

  async onApplicationBootstrap(): Promise<void> {
    const port = this.config.metricsPort;
    if (port === undefined) return;
    collectDefaultMetrics({ register: this.metrics.registry });
    const server = createServer((req, res) => void this.answer(req, res));
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.headersTimeout = REQUEST_TIMEOUT_MS;
    const host = this.config.metricsHost;
    await new Promise<void>((resolve, reject) => {
      // A port in use or a host not this machine's is METRICS_PORT's or METRICS_HOST's, not PORT's.
      const failed = (error: unknown) => reject(listenErrorOf(error, { port, host, variables: METRICS_VARIABLES }));
      server.once('error', failed);
      server.listen(port, host, () => {
        server.off('error', failed);
        resolve();
      });
    });
    this.server = server;
    this.logger.info({ port, host }, 'serving metrics');
  }

  /** After the API's server has closed: a scrape still sees the shutdown's last attempts. Kept-alive scrapers are cut, so nothing holds the process. */
  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end('{"code":"not found"}');
      return;
    }
    try {
      const body = await this.metrics.registry.metrics();
      res.writeHead(200, { 'content-type': this.metrics.registry.contentType }).end(body);
    } catch (error) {
      this.logger.error({ err: error }, 'could not render the metrics');
      res.writeHead(500).end();
    }
  }
}
