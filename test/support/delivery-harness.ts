import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { Test } from 'supertest';
import { ConnectProxy, startConnectProxy } from './connect-proxy';
import type { DatabaseKind } from './databases';
import type { Zone } from './dns-server';
import { TestApp, TestAppOptions } from './test-app';
import { startWebhookReceiver, TEST_CA_FILE, WebhookReceiver } from './webhook-receiver';

/** The webhook host of the delivery suites: its certificate is the receiver's, its address public. */
export const HOOKS = 'hooks.example.com';
/** The public address HOOKS resolves to; the CONNECT proxy maps it to the receiver. */
export const PUBLIC_A = '1.1.1.10';
export const HOOKS_ZONE: Zone = { [HOOKS]: { A: [PUBLIC_A] } };

/** A unique path on the receiver, so that each test reads only its own requests. */
export const newPath = (): string => `/${randomBytes(6).toString('hex')}`;

/** The delivery settings of the suites, short so that each behaviour shows within seconds; a suite may override any. */
const DELIVERY_DEFAULTS = {
  DELIVERY_POLL_MS: '100',
  DELIVERY_TIMEOUT_MS: '1500',
  DELIVERY_RETRY_SCHEDULE: '1,1',
};

/**
 * Where deliveries go in the tests: an HTTPS receiver on loopback with its own certificate, and
 * an HTTP CONNECT proxy that maps PUBLIC_A:443 to it, so that every SSRF rule stays on (the
 * webhook's host resolves to a public address) and no packet leaves the machine. `env` points
 * a service instance at them; several instances may share one target.
 */
export interface DeliveryTarget {
  readonly receiver: WebhookReceiver;
  readonly proxy: ConnectProxy;
  readonly env: Record<string, string>;
  close(): Promise<void>;
}

export async function startDeliveryTarget(): Promise<DeliveryTarget> {
  const receiver = await startWebhookReceiver();
  const proxy = await startConnectProxy({ [`${PUBLIC_A}:443`]: receiver.port });
  return {
    receiver,
    proxy,
    env: { DELIVERY_PROXY_URL: proxy.url, DELIVERY_CA_FILE: TEST_CA_FILE },
    close: async () => {
      await proxy.close();
      await receiver.close();
    },
  };
}

/** One row of `deliveries` as the suites compare it. */
export interface DeliveryRow {
  state: string;
  attempts: number;
  lastError: string | null;
  lastStatus: number | null;
}

/** An organization made for one test: its owner's session and each webhook's secret by name. */
export interface TestOrganization {
  readonly organizationId: number;
  readonly userId: number;
  readonly cookie: string;
  readonly secrets: Record<string, string>;
}

/**
 * One delivering instance of the service (TestApp) against a DeliveryTarget, with a platform
 * key to send events: what the delivery suites share, so that each starts it once.
 */
export class DeliveryHarness {
  private constructor(
    readonly app: TestApp,
    private readonly target: DeliveryTarget,
    readonly platformKey: string,
    private readonly options: Pick<TestAppOptions, 'zone' | 'env'>,
  ) {}

  /** `options.env` over the delivery defaults; `options.zone` defaults to HOOKS_ZONE. */
  static async start(kind: DatabaseKind, options: Pick<TestAppOptions, 'zone' | 'env'> = {}): Promise<DeliveryHarness> {
    const target = await startDeliveryTarget();
    const app = await TestApp.start(kind, {
      zone: options.zone ?? HOOKS_ZONE,
      env: { ...DELIVERY_DEFAULTS, ...target.env, ...options.env },
    }).catch(async (error: unknown) => {
      await target.close();
      throw error;
    });
    const { token } = await app.identity.createPlatformKey('platform');
    return new DeliveryHarness(app, target, token, options);
  }

  /**
   * Another delivering instance on this one's database, to the same target, with the same options
   * but a metrics listener (a port is one process's): the caller closes it.
   */
  another(): Promise<TestApp> {
    const env: Record<string, string> = { ...DELIVERY_DEFAULTS, ...this.target.env, ...this.options.env };
    delete env.METRICS_PORT;
    return this.app.another({ zone: this.options.zone ?? HOOKS_ZONE, env });
  }

  get receiver(): WebhookReceiver {
    return this.target.receiver;
  }

  get proxy(): ConnectProxy {
    return this.target.proxy;
  }

  /** POST /api/events with the platform key. */
  sendEvent(body: unknown, headers: Record<string, string> = {}): Test {
    return this.app
      .http()
      .post('/api/events')
      .set('Authorization', `Bearer ${this.platformKey}`)
      .set(headers)
      .send(body as object);
  }

  /** POST /api/events/batch with the platform key (docs/api.md 10.1.1), on this instance or `on` another of its database. */
  sendBatch(body: unknown, on: TestApp = this.app): Test {
    return on
      .http()
      .post('/api/events/batch')
      .set('Authorization', `Bearer ${this.platformKey}`)
      .send(body as object);
  }

  /** A new organization and owner, with one webhook per `{name: body}` (each created with 201). */
  async organizationWith(webhooks: Record<string, object>): Promise<TestOrganization> {
    const { organizationId, userId, cookie } = await this.app.member('owner');
    const secrets: Record<string, string> = {};
    for (const [name, body] of Object.entries(webhooks)) {
      const res = await this.app.http().post(`/api/webhook/${name}`).set('Cookie', cookie).send(body);
      expect(res.status).toBe(201);
      secrets[name] = res.body.secret;
    }
    return { organizationId, userId, cookie, secrets };
  }

  /** The deliveries of an event, in the order they were made, straight from the database. */
  async deliveriesOf(eventId: string): Promise<DeliveryRow[]> {
    const rows: DeliveryRow[] = await this.app.dataSource.query(
      'SELECT state, attempts, last_error AS lastError, last_status AS lastStatus FROM deliveries WHERE event_id = ? ORDER BY id',
      [eventId],
    );
    return rows.map((row) => ({
      ...row,
      attempts: Number(row.attempts),
      lastStatus: row.lastStatus === null ? null : Number(row.lastStatus),
    }));
  }

  /** Polls until an event has deliveries and none is pending; returns them. */
  async settled(eventId: string, timeout = 15_000): Promise<DeliveryRow[]> {
    let rows: DeliveryRow[] = [];
    await expect
      .poll(
        async () => {
          rows = await this.deliveriesOf(eventId);
          return rows.length > 0 && rows.every((row) => row.state !== 'pending');
        },
        { timeout, interval: 50 },
      )
      .toBe(true);
    return rows;
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.target.close();
  }
}
