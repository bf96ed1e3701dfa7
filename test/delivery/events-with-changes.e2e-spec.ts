import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, DatabaseKind, describeEachDatabase, TestDatabase } from '../support/databases';
import { DeliveryTarget, HOOKS, HOOKS_ZONE, startDeliveryTarget } from '../support/delivery-harness';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { freePorts } from '../support/ports';
import { runCli, startServer, waitForHealthy } from '../support/processes';
import { TestApp } from '../support/test-app';

/*
 * docs/api.md 10.12: an event the service emits itself is written in the transaction of the
 * change that causes it. Each case kills the built process (SIGKILL, test/support/die-between.cjs)
 * between the change's statement and its event's, and finds neither; then lets it run and
 * finds both.
 */

const DIE_BETWEEN = join(__dirname, '..', 'support', 'die-between.cjs');
const DAY_MS = 24 * 3600 * 1000;
const PRODUCER_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';

describeEachDatabase('events written with the change', (kind: DatabaseKind) => {
  let database: TestDatabase;
  let secretKey: string;
  let t: TestApp;
  let dns: TestDnsServer;
  let target: DeliveryTarget;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    secretKey = randomBytes(32).toString('base64');
    dns = await startDnsServer(HOOKS_ZONE);
    target = await startDeliveryTarget();
    // The test's own instance writes the setup and reads the outcome; it never dispatches.
    t = await TestApp.start(kind, { database, secretKey, zone: HOOKS_ZONE, env: { DELIVERY_CONCURRENCY: '0' } });
  });
  afterAll(async () => {
    await t?.close();
    await target?.close();
    await dns?.close();
    await database?.drop();
  });

  const serviceEnv = (extra: Record<string, string> = {}) => ({
    DATABASE_URL: database.url,
    SECRET_KEY: secretKey,
    LOG_LEVEL: 'error',
    ...extra,
  });
  const dyingBetween = (after: string, before: string) => ({
    NODE_OPTIONS: `--require ${DIE_BETWEEN}`,
    DIE_AFTER: after,
    DIE_BEFORE: before,
  });
  /** Each event's type and trace id (docs/api.md 10.17), in the order written. */
  const eventTraces = async (organizationId: number): Promise<[string, string | null][]> =>
    (
      await t.dataSource.query('SELECT type, trace_id AS traceId FROM events WHERE organization_id = ? ORDER BY created_at', [
        organizationId,
      ])
    ).map((row: { type: string; traceId: string | null }) => [row.type, row.traceId]);
  const eventTypes = async (organizationId: number): Promise<string[]> =>
    (await t.dataSource.query('SELECT type FROM events WHERE organization_id = ? ORDER BY created_at', [organizationId])).map(
      (row: { type: string }) => row.type,
    );

  it('card set-status: killed between the card and its card.updated event, neither; run through, both', async () => {
    const holder = await t.cardHolder({ provisioningId: 'prov-10-12', provisioningSecret: 'secret-10-12' });
    const [{ organizationId }] = await t.dataSource.query('SELECT organization_id AS organizationId FROM cards WHERE id = ?', [
      holder.cardId,
    ]);
    const statusOf = async () => (await t.dataSource.query('SELECT status FROM cards WHERE id = ?', [holder.cardId]))[0].status;
    const args = ['card', 'set-status', '--card', String(holder.cardId), '--status', 'frozen'];

    const killed = await runCli(args, serviceEnv(dyingBetween('UPDATE cards SET status', 'INSERT INTO events')));
    expect({ signal: killed.signal, stdout: killed.stdout }).toEqual({ signal: 'SIGKILL', stdout: '' });
    expect(await statusOf()).toBe('active');
    expect(await eventTypes(Number(organizationId))).toEqual([]);

    expect((await runCli(args, serviceEnv())).code).toBe(0);
    expect(await statusOf()).toBe('frozen');
    // An event of the service's own starts a trace of its own (docs/api.md 10.17).
    expect(await eventTraces(Number(organizationId))).toEqual([['card.updated', expect.stringMatching(/^[0-9a-f]{32}$/)]]);
  });

  it('webhook disabling: killed between disabling the webhook and its webhook.disabled event, neither; run through, both', async () => {
    target.receiver.on('/failing', { status: 500 });
    const { organizationId, cookie } = await t.member('owner');
    for (const name of ['failing', 'other']) {
      expect(
        (
          await t
            .http()
            .post(`/api/webhook/${name}`)
            .set('Cookie', cookie)
            .send({ url: `https://${HOOKS}/${name}` })
        ).status,
      ).toBe(201);
    }
    // Failing for two days, nine attempts: the next failed attempt disables it (DELIVERY_DISABLE_AFTER_DAYS=1).
    const [{ id: webhookId }] = await t.dataSource.query(
      "SELECT id FROM webhooks WHERE name = 'failing' AND source_id = (SELECT id FROM webhook_sources WHERE organization_id = ?)",
      [organizationId],
    );
    const since = new Date(Date.now() - 2 * DAY_MS).toISOString().replace('T', ' ').replace('Z', '');
    await t.dataSource.query('INSERT INTO webhook_health (webhook_id, failing_since, failed_attempts) VALUES (?, ?, 9)', [
      webhookId,
      since,
    ]);
    const { token } = await t.identity.createPlatformKey('platform');
    expect(
      (
        await t
          .http()
          .post('/api/events')
          .set({ Authorization: `Bearer ${token}`, traceparent: `00-${PRODUCER_TRACE}-00f067aa0ba902b7-01` })
          .send({ type: 'user.updated', organization: organizationId, data: {} })
      ).status,
    ).toBe(202);

    const [port] = await freePorts(1);
    const server = (extra: Record<string, string>) =>
      startServer(
        serviceEnv({
          PORT: String(port),
          HOST: '127.0.0.1',
          DNS_SERVERS: dns.address,
          ...target.env,
          DELIVERY_POLL_MS: '100',
          DELIVERY_RETRY_SCHEDULE: '1,1,1',
          DELIVERY_DISABLE_AFTER_DAYS: '1',
          ...extra,
        }),
      );
    const disabled = async () => ({
      webhook: (await t.http().get('/api/webhook/failing').set('Cookie', cookie)).body.disabled ?? false,
      events: (await eventTypes(organizationId)).filter((type) => type === 'webhook.disabled').length,
      audit: ((await t.http().get('/api/audit').set('Cookie', cookie)).body.data as { action: string }[]).filter(
        (e) => e.action === 'webhook.disabled',
      ).length,
    });

    const dying = server(dyingBetween('UPDATE webhooks SET disabled_at', 'INSERT INTO events'));
    await dying.exited;
    expect(dying.child.signalCode).toBe('SIGKILL');
    expect(await disabled()).toEqual({ webhook: false, events: 0, audit: 0 });

    const surviving = server({});
    try {
      await waitForHealthy(`http://127.0.0.1:${port}/health`);
      await expect.poll(disabled, { timeout: 15_000 }).toEqual({ webhook: true, events: 1, audit: 1 });
      // The disabling's event starts a trace of its own, not the one of the event whose attempt disabled the webhook (10.17).
      const traces = new Map(await eventTraces(organizationId));
      expect(traces.get('user.updated')).toBe(PRODUCER_TRACE);
      expect(traces.get('webhook.disabled')).toMatch(/^[0-9a-f]{32}$/);
      expect(traces.get('webhook.disabled')).not.toBe(PRODUCER_TRACE);
    } finally {
      surviving.child.kill('SIGTERM');
      await surviving.exited;
    }
  });
});
