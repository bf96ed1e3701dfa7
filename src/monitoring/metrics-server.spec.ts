import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AppConfig, loadAppConfig } from '../config/app-config';
import { createPino } from '../logging/pino.provider';
import { Metrics } from '../metrics/metrics';
import { MetricsServer } from './metrics-server';

const SECRET_KEY = Buffer.alloc(32).toString('base64');

/**
 * A metrics server on an ephemeral port (METRICS_PORT 0 is refused by the configuration, not here)
 * of METRICS_HOST's default, 127.0.0.1, while HOST keeps its own, every interface.
 */
function serverWith(metricsPort: number | undefined, env: Record<string, string> = {}): { server: MetricsServer; metrics: Metrics } {
  const config = new AppConfig({ ...loadAppConfig({ SECRET_KEY, ...env }), metricsPort });
  const metrics = new Metrics();
  return { server: new MetricsServer(metrics, config, createPino('silent')), metrics };
}

function get(
  port: number,
  path: string,
  options: { method?: string; agent?: Agent } = {},
): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: options.method ?? 'GET', agent: options.agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, type: String(res.headers['content-type']), body }));
    });
    req.on('error', reject).end();
  });
}

describe('MetricsServer', () => {
  let started: MetricsServer | undefined;
  afterEach(async () => {
    await started?.onApplicationShutdown();
    started = undefined;
  });

  async function start(): Promise<{ port: number; metrics: Metrics }> {
    const { server, metrics } = serverWith(0);
    await server.onApplicationBootstrap();
    started = server;
    return { port: server.port!, metrics };
  }

  it('serves GET /metrics in the Prometheus text format: the instruments and the process metrics', async () => {
    const { port, metrics } = await start();
    metrics.attemptMade({ ok: false, error: 'http 503', durationMs: 120 });
    const res = await get(port, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.body).toContain('# TYPE platform_api_delivery_attempts_total counter');
    expect(res.body).toMatch(/^platform_api_delivery_attempts_total\{outcome="http 5xx"\} 1$/m);
    expect(res.body).toMatch(/^process_cpu_seconds_total \d/m);
  });

  it.each([
    ['GET', '/'],
    ['GET', '/metrics/'],
    ['GET', '/health'],
    ['POST', '/metrics'],
    ['HEAD', '/metrics'],
  ])('answers %s %s 404', async (method, path) => {
    const { port } = await start();
    const res = await get(port, path, { method });
    expect(res.status).toBe(404);
    if (method !== 'HEAD') expect(JSON.parse(res.body)).toEqual({ code: 'not found' });
  });

  it('closes at shutdown, cutting a kept-alive scraper', async () => {
    const { server } = serverWith(0);
    await server.onApplicationBootstrap();
    const port = server.port!;
    const agent = new Agent({ keepAlive: true });
    expect((await get(port, '/metrics', { agent })).status).toBe(200);
    await server.onApplicationShutdown();
    expect(server.port).toBeUndefined();
    await expect(get(port, '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    agent.destroy();
  });

  it('listens on METRICS_HOST, 127.0.0.1 by default, not on HOST (every interface by default)', async () => {
    const { server } = serverWith(0, { HOST: '0.0.0.0' });
    await server.onApplicationBootstrap();
    started = server;
    expect(server.host).toBe('127.0.0.1');
  });

  it('listens on the address METRICS_HOST names', async () => {
    const { server } = serverWith(0, { HOST: '127.0.0.1', METRICS_HOST: '::1' });
    await server.onApplicationBootstrap();
    started = server;
    expect(server.host).toBe('::1');
    await expect(get(server.port!, '/metrics')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('listens nowhere when METRICS_PORT is unset', async () => {
    const { server } = serverWith(undefined);
    await server.onApplicationBootstrap();
    expect(server.port).toBeUndefined();
  });
});
