import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sqlTimestamp } from '../../src/database/sql-dialect';
import { MetricsServer } from '../../src/monitoring/metrics-server';
import { QueueGauges } from '../../src/monitoring/queue-gauges';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { DeliveryHarness, HOOKS } from '../support/delivery-harness';
import { freePort } from '../support/ports';
import { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * Prometheus metrics (docs/api.md 9) on their own listener, METRICS_PORT on METRICS_HOST (loopback
 * by default, whatever HOST says): what the API answered, the events accepted and refused, the
 * attempts made (delivered through the receiver and CONNECT proxy of the delivery suites), the
 * queue's gauges; and nothing of it on the public port.
 */

type Labels = Record<string, string>;

/** The value of one sample of a scrape (its labels exactly these), or undefined when it has none. */
function sample(scrape: string, name: string, labels: Labels = {}): number | undefined {
  const wanted = Object.entries(labels)
    .map(([label, value]) => `${label}="${value}"`)
    .sort()
    .join(',');
  for (const line of scrape.split('\n')) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const have = (match[2] ?? '')
      .split(/,(?=[A-Za-z_]\w*=")/)
      .filter((pair) => pair !== '')
      .sort()
      .join(',');
    if (have === wanted) return Number(match[3]);
  }
  return undefined;
}

describeEachDatabase('metrics', (kind: DatabaseKind) => {
  let h: DeliveryHarness;
  let t: TestApp;
  let receiver: WebhookReceiver;
  let metricsPort: number;

  beforeAll(async () => {
    metricsPort = await freePort();
    h = await DeliveryHarness.start(kind, {
      env: {
        // HOST and METRICS_HOST left to their defaults: every interface for the API, loopback for metrics.
        METRICS_PORT: String(metricsPort),
        // One pending delivery fills an organization's queue: every test uses organizations of its own.
        DELIVERY_PENDING_PER_ORG_MAX: '1',
      },
    });
    ({ app: t, receiver } = h);
  });
  afterAll(() => h?.close());

  const scrape = async (): Promise<string> => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    return res.text();
  };

  const hookName = () => `hook-${randomBytes(4).toString('hex')}`;

  /** A new organization with one webhook to the receiver's `path`: its organization, cookie and the webhook's name. */
  async function organizationWith(path: string): Promise<{ organizationId: number; cookie: string; name: string }> {
    const name = hookName();
    const { organizationId, cookie } = await h.organizationWith({ [name]: { url: `https://${HOOKS}${path}` } });
    return { organizationId, cookie, name };
  }

  it('counts each request by the route pattern it matched, its method and its status, never by its path', async () => {
    const { cookie } = await t.member('owner');
    expect((await t.http().get('/api/webhook/no-such-hook').set('Cookie', cookie)).status).toBe(404);
    expect((await t.http().get('/api/no-such-route')).status).toBe(404);
    const text = await scrape();
    expect(sample(text, 'platform_api_http_requests_total', { route: '/api/webhook/:name', method: 'GET', status: '404' })).toBe(1);
    expect(sample(text, 'platform_api_http_request_duration_seconds_count', { route: '/api/webhook/:name', method: 'GET' })).toBe(1);
    expect(sample(text, 'platform_api_http_requests_total', { route: 'unmatched', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(
      1,
    );
    expect(text).not.toContain('no-such');
  });

  it('counts accepted events by type and source (not a replay), and attempts by outcome with their durations', async () => {
    const [ok, gone] = ['/ok', '/gone'];
    receiver.on(gone, { status: 410 });
    const a = await organizationWith(ok);
    const b = await organizationWith(gone);
    const first = await h.sendEvent(
      { type: 'transaction.created', organization: a.organizationId, data: {} },
      { 'Idempotency-Key': 'once' },
    );
    const replay = await h.sendEvent(
      { type: 'transaction.created', organization: a.organizationId, data: {} },
      { 'Idempotency-Key': 'once' },
    );
    expect([first.status, replay.status, replay.body.id]).toEqual([202, 202, first.body.id]);
    expect((await h.sendEvent({ type: 'user.updated', organization: b.organizationId, data: {} })).status).toBe(202);
    await receiver.waitFor(ok, 1);
    expect((await t.http().post(`/api/webhook/${b.name}/test`).set('Cookie', b.cookie)).status).toBe(202);
    await receiver.waitFor(gone, 2);

    // What the dispatcher counts lands just after the receiver's answer.
    await expect
      .poll(async () => sample(await scrape(), 'platform_api_delivery_attempts_total', { outcome: 'http 4xx' }), { timeout: 10_000 })
      .toBe(2);
    const text = await scrape();
    expect(sample(text, 'platform_api_events_accepted_total', { type: 'transaction.created', source: 'api' })).toBe(1);
    expect(sample(text, 'platform_api_events_accepted_total', { type: 'user.updated', source: 'api' })).toBe(1);
    expect(sample(text, 'platform_api_events_accepted_total', { type: 'webhook.test', source: 'console' })).toBe(1);
    expect(sample(text, 'platform_api_delivery_attempts_total', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'platform_api_delivery_attempt_duration_seconds_count', { result: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'platform_api_delivery_attempt_duration_seconds_count', { result: 'failed' })).toBe(2);
    const samples = text.split('\n').filter((line) => !line.startsWith('#'));
    expect(samples.join('\n')).not.toMatch(/http 410|evt_|hook-/);
  });

  it('counts 429 queue full refusals', async () => {
    const slow = '/slow';
    receiver.on(slow, 'hang');
    const { organizationId } = await organizationWith(slow);
    expect((await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} })).status).toBe(202);
    const refused = await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 429, body: { code: 'queue full' } });
    expect(sample(await scrape(), 'platform_api_events_queue_full_total')).toBe(1);
  });

  it('reads the queue into gauges: pending deliveries, the oldest due one, open breakers and disabled webhooks', async () => {
    const { organizationId, cookie, name } = await organizationWith('/held');
    const off = hookName();
    expect(
      (
        await t
          .http()
          .post(`/api/webhook/${off}`)
          .set('Cookie', cookie)
          .send({ url: `https://${HOOKS}/off` })
      ).status,
    ).toBe(201);
    const idOf = async (webhook: string) => Number((await t.dataSource.query('SELECT id FROM webhooks WHERE name = ?', [webhook]))[0].id);
    const now = Date.now();
    // The breaker of one holds its deliveries back (pending, due, not attempted); the other is disabled.
    await t.dataSource.query('INSERT INTO webhook_health (webhook_id, breaker_failures, breaker_open_until) VALUES (?, 5, ?)', [
      await idOf(name),
      sqlTimestamp(new Date(now + 3_600_000)),
    ]);
    await t.dataSource.query('UPDATE webhooks SET disabled_at = ? WHERE id = ?', [sqlTimestamp(new Date(now)), await idOf(off)]);
    expect((await h.sendEvent({ type: 'user.updated', organization: organizationId, data: {} })).body.deliveries).toBe(2);

    await t.app.get(QueueGauges).read();
    const text = await scrape();
    expect(sample(text, 'platform_api_webhooks_breaker_open')).toBe(1);
    expect(sample(text, 'platform_api_webhooks_disabled')).toBe(1);
    expect(sample(text, 'platform_api_delivery_queue_pending')).toBeGreaterThanOrEqual(1);
    // The held-back delivery is not a queue falling behind.
    expect(sample(text, 'platform_api_delivery_queue_oldest_due_age_seconds')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'platform_api_delivery_queue_oldest_due_age_seconds')).toBeLessThan(5);
  });

  it('listens on METRICS_HOST, 127.0.0.1 by default, not on HOST (0.0.0.0 by default)', () => {
    expect(t.config.host).toBe('0.0.0.0');
    expect({ host: t.app.get(MetricsServer).host, port: t.app.get(MetricsServer).port }).toEqual({ host: '127.0.0.1', port: metricsPort });
  });

  it('serves nothing of it on the public port: GET /metrics is the usual 404', async () => {
    const res = await t.http().get('/metrics');
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { code: 'not found' } });
  });
});
