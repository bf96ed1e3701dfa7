import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, describeOnMariadb, TestDatabase } from '../support/databases';
import { DeliveryTarget, HOOKS, HOOKS_ZONE, startDeliveryTarget } from '../support/delivery-harness';
import { TcpProxy } from '../support/tcp-proxy';
import { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * The database cut off while events come in and deliveries go out (docs/api.md 10.1, 10.6):
 * ingest answers 503 while it cannot commit (never a 202 that is then lost), dispatching
 * resumes within 5 s of the database's return, and every event that was answered 202 arrives
 * (a claim cut off in its commit, within a lease).
 * The cut is a TCP proxy between the service and MariaDB that refuses connections.
 */

const CUT_MS = 3000;
const AFTER_RESTORE_MS = 2000;
const TIMEOUT_MS = 1500;
const LEASE_MS = TIMEOUT_MS + 30_000;

describeOnMariadb('delivery while the database is cut off', () => {
  let real: TestDatabase;
  let tcp: TcpProxy;
  let target: DeliveryTarget;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let platformKey: string;
  let organizationId: number;

  beforeAll(async () => {
    real = await createTestDatabase('mariadb');
    const realUrl = new URL(real.url);
    tcp = await TcpProxy.start({ host: realUrl.hostname, port: Number(realUrl.port || 3306) });
    const viaProxy = new URL(real.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(tcp.port);
    target = await startDeliveryTarget();
    receiver = target.receiver;
    t = await TestApp.start('mariadb', {
      database: { kind: 'mariadb', url: viaProxy.toString(), drop: () => real.drop() },
      zone: HOOKS_ZONE,
      env: {
        DB_CONNECT_TIMEOUT_MS: '500',
        DB_QUERY_TIMEOUT_MS: '2000',
        ...target.env,
        DELIVERY_POLL_MS: '200',
        DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
        DELIVERY_RETRY_SCHEDULE: '1,1,1',
      },
    });
    const owner = await t.member('owner');
    organizationId = owner.organizationId;
    expect(
      (
        await t
          .http()
          .post('/api/webhook/cut')
          .set('Cookie', owner.cookie)
          .send({ url: `https://${HOOKS}/cut` })
      ).status,
    ).toBe(201);
    platformKey = (await t.identity.createPlatformKey('platform')).token;
  });
  afterAll(async () => {
    await t?.close();
    await target?.close();
    await tcp?.close();
    // The service was handed this database, so it leaves it (TestApp drops only its own).
    await real?.drop();
  });

  it(
    'answers 202 or 503 only, resumes within 5 s of the return, and delivers every event it accepted',
    async () => {
      const answers: { status: number; id?: string }[] = [];
      let sending = true;
      const sender = (async () => {
        for (let n = 0; sending; n++) {
          const res = await t
            .http()
            .post('/api/events')
            .set('Authorization', `Bearer ${platformKey}`)
            .send({ type: 'user.updated', organization: organizationId, data: { n } });
          answers.push({ status: res.status, id: res.body.id });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await tcp.cut('refuse');
      await new Promise((resolve) => setTimeout(resolve, CUT_MS));
      await tcp.restore();
      const restoredAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, AFTER_RESTORE_MS));
      sending = false;
      await sender;

      expect(new Set(answers.map((a) => a.status))).toEqual(new Set([202, 503]));
      const accepted = answers.filter((a) => a.status === 202).map((a) => a.id!);
      // A claim whose COMMIT was cut off may have landed without the dispatcher knowing: that
      // delivery is claimed again once its lease (DELIVERY_TIMEOUT_MS + 30 s) has run out.
      const missing = () => {
        const arrived = new Set(receiver.received.map((r) => r.headers['webhook-id']));
        return accepted.filter((id) => !arrived.has(id));
      };
      await expect.poll(missing, { timeout: LEASE_MS + 10_000, interval: 100, message: 'every accepted event arrives' }).toEqual([]);
      const firstAfterRestore = Math.min(...receiver.received.map((r) => r.at).filter((at) => at >= restoredAt));
      expect(firstAfterRestore - restoredAt).toBeLessThanOrEqual(5000);
    },
    LEASE_MS + 60_000,
  );
});
