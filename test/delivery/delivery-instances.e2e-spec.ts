import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import mysql from 'mysql2/promise';
import { afterEach, expect, it } from 'vitest';
import { createTestDatabase, describeOnMariadb, TestDatabase } from '../support/databases';
import { DeliveryTarget, HOOKS, HOOKS_ZONE, startDeliveryTarget } from '../support/delivery-harness';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { freePorts } from '../support/ports';
import { startServer, waitForHealthy } from '../support/processes';
import { TestApp } from '../support/test-app';
import type { WebhookReceiver } from '../support/webhook-receiver';

/*
 * Many instances, one database, one queue (docs/api.md 10.5, 10.6): three built server
 * processes on MariaDB share the work of 5 000 events to two webhooks each. Every delivery
 * arrives, none twice; and when one instance is killed (SIGKILL) in the middle, none is lost:
 * what it held is delivered by the others once its lease has run out, and only its attempts in
 * flight (made, their outcome not yet written: DELIVERY_CONCURRENCY at most) arrive twice.
 */

const EVENTS = 5000;
const WEBHOOKS = ['/a', '/b'];
const CONCURRENCY = 32;
/** Long enough that no attempt to the loopback receiver times out on a loaded machine (a timeout is retried: an arrival twice). */
const TIMEOUT_MS = 8000;
/** docs/api.md 10.5: a claim is taken again after DELIVERY_TIMEOUT_MS + 30 s. */
const LEASE_MS = TIMEOUT_MS + 30_000;
const SLOW_MS = 240_000;

interface Cluster {
  database: TestDatabase;
  dns: TestDnsServer;
  target: DeliveryTarget;
  servers: { child: ChildProcess; base: string; exited: Promise<number | null> }[];
  platformKey: string;
  organizationId: number;
}

let cluster: Cluster | undefined;

afterEach(async () => {
  if (!cluster) return;
  for (const server of cluster.servers) server.child.kill('SIGKILL');
  await Promise.all(cluster.servers.map((server) => server.exited));
  await cluster.target.close();
  await cluster.dns.close();
  await cluster.database.drop();
  cluster = undefined;
});

async function startCluster(instances: number): Promise<Cluster> {
  const database = await createTestDatabase('mariadb');
  const dns = await startDnsServer(HOOKS_ZONE);
  const target = await startDeliveryTarget();
  const secretKey = randomBytes(32).toString('base64');

  // The organization, its two webhooks and a platform key, through an instance that does not deliver.
  const seeder = await TestApp.start('mariadb', {
    database,
    secretKey,
    zone: HOOKS_ZONE,
    env: { DELIVERY_CONCURRENCY: '0' },
  });
  const { organizationId, cookie } = await seeder.member('owner');
  for (const path of WEBHOOKS) {
    expect(
      (
        await seeder
          .http()
          .post(`/api/webhook/hook${path.slice(1)}`)
          .set('Cookie', cookie)
          .send({ url: `https://${HOOKS}${path}` })
      ).status,
    ).toBe(201);
  }
  const { token } = await seeder.identity.createPlatformKey('platform');
  await seeder.close();

  const ports = await freePorts(instances);
  const servers = ports.map((port) => {
    const { child, exited } = startServer({
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      SECRET_KEY: secretKey,
      DNS_SERVERS: dns.address,
      LOG_LEVEL: 'warn',
      ...target.env,
      DELIVERY_CONCURRENCY: String(CONCURRENCY),
      DELIVERY_TIMEOUT_MS: String(TIMEOUT_MS),
      DELIVERY_POLL_MS: '200',
      RATE_LIMIT_PER_PLATFORM_KEY: '1000000',
    });
    return { child, exited, base: `http://127.0.0.1:${port}` };
  });
  await Promise.all(servers.map((server) => waitForHealthy(`${server.base}/health`, 30_000)));
  return { database, dns, target, servers, platformKey: token, organizationId };
}

/**
 * Sends EVENTS events, round robin over the instances that are up, 16 at a time; their ids. Each
 * carries an Idempotency-Key, so a request cut off by a dying instance is sent again to another
 * and answered with the same event.
 */
async function sendEvents(c: Cluster, up: () => number[]): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const send = async (n: number, attempt: number): Promise<string> => {
    const alive = up();
    const base = c.servers[alive[(n + attempt) % alive.length]].base;
    try {
      const res = await fetch(`${base}/api/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.platformKey}`, 'content-type': 'application/json', 'idempotency-key': `event-${n}` },
        body: JSON.stringify({ type: 'transaction.created', organization: c.organizationId, data: { n } }),
      });
      if (res.status !== 202) throw new Error(`status ${res.status}`);
      return ((await res.json()) as { id: string }).id;
    } catch (error) {
      if (attempt >= 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return send(n, attempt + 1);
    }
  };
  const worker = async () => {
    while (next < EVENTS) ids.push(await send(next++, 0));
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return ids;
}

/** Per webhook path, how often each event id arrived. */
function arrivals(receiver: WebhookReceiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of receiver.received) {
    const key = `${request.path} ${request.headers['webhook-id']}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Polls until every event has arrived at every webhook; how often each arrived. */
async function untilAllArrived(c: Cluster, ids: string[], timeout: number): Promise<Map<string, number>> {
  const missing = () => {
    const counts = arrivals(c.target.receiver);
    return ids.flatMap((id) => WEBHOOKS.filter((path) => !counts.has(`${path} ${id}`)).map((path) => `${path} ${id}`));
  };
  await expect.poll(() => missing().length, { timeout, interval: 250, message: 'every delivery arrives' }).toBe(0);
  return arrivals(c.target.receiver);
}

describeOnMariadb('three instances sharing the queue', () => {
  it(
    `deliver ${EVENTS} events to 2 webhooks each: every delivery arrives, none twice`,
    async () => {
      cluster = await startCluster(3);
      const ids = await sendEvents(cluster, () => [0, 1, 2]);
      expect(new Set(ids).size).toBe(EVENTS);
      const counts = await untilAllArrived(cluster, ids, 120_000);
      expect(counts.size).toBe(EVENTS * WEBHOOKS.length);
      expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
      const connection = await mysql.createConnection({ uri: cluster.database.url });
      const [[{ pending }]] = (await connection.query(
        "SELECT COUNT(*) AS pending FROM deliveries WHERE state <> 'succeeded'",
      )) as unknown as [{ pending: number }[]];
      await connection.end();
      expect(Number(pending)).toBe(0);
    },
    SLOW_MS,
  );

  it(
    'lose nothing when one is killed with SIGKILL in the middle: its claims are delivered after the lease, only its attempts in flight twice',
    async () => {
      cluster = await startCluster(3);
      const c = cluster;
      let killed = false;
      const sending = sendEvents(c, () => (killed ? [0, 1] : [0, 1, 2]));
      // Kill the third instance once the receiver has seen a good part of the work.
      await expect
        .poll(() => c.target.receiver.received.length, { timeout: 60_000, interval: 20 })
        .toBeGreaterThanOrEqual((EVENTS * WEBHOOKS.length) / 4);
      c.servers[2].child.kill('SIGKILL');
      killed = true;
      await c.servers[2].exited;
      const ids = await sending;
      const counts = await untilAllArrived(c, ids, LEASE_MS + 90_000);
      expect(counts.size).toBe(EVENTS * WEBHOOKS.length);
      const twice = [...counts.values()].filter((n) => n > 1);
      expect(twice.every((n) => n === 2)).toBe(true);
      expect(twice.length).toBeLessThanOrEqual(CONCURRENCY);
    },
    SLOW_MS,
  );
});
