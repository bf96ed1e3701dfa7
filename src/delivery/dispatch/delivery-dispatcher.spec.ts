import type { Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../../config/app-config';
import type { Metrics } from '../../metrics/metrics';
import type { WebhookTarget } from '../../webhooks/webhook-sql';
import type { DispatchSignal } from '../dispatch-signal';
import { classify } from './attempt-outcome';
import type { AttemptRunner } from './attempt-runner';
import { DeliveryDispatcher } from './delivery-dispatcher';
import type { ClaimedDelivery, DeliveryQueue } from './delivery-queue';
import type { DeliveryTransitions } from './delivery-transitions';
import type { DispatchWork } from './dispatch-database';
import type { EndpointHealthService } from './endpoint-health.service';
import type { WebhookDisablingService } from './webhook-disabling.service';

/*
 * The dispatcher's shell around its scheduler (docs/api.md 10.5, 10.6, 10.10), against a queue,
 * a runner and a database that answer as each test says: what it does with a claim when a read,
 * the lease or the attempt lets it down. Real timers; its clock (Date.now) moves when a test says.
 */

const TIMEOUT_MS = 200;
/** What a claim's lease must have left for its attempt to be made: the attempt's deadline and the dispatcher's 5 s. */
const MIN_LEASE_LEFT_MS = TIMEOUT_MS + 5000;
const OK = classify({ kind: 'answered', status: 200, durationMs: 5 }, TIMEOUT_MS / 2);
const target = { name: 'hook', url: 'https://hooks.example.com/', disabled: false } as unknown as WebhookTarget;

/** The dispatcher's clock runs this far ahead of the real one. */
let skew = 0;
const realNow = Date.now.bind(Date);

/** A delivery of webhook 7 as a claim at `now` gives it, with a lease of `leaseMs`. */
const delivery = (id: number, now: number, leaseMs = 60_000): ClaimedDelivery => ({
  id,
  webhookId: 7,
  organizationId: 3,
  retry: false,
  leaseEndsAt: now + leaseMs,
  dueAt: now,
  attempts: 0,
  retryFrom: 0,
  eventId: `evt_${id}`,
  eventType: 'card.updated',
  bodyBytes: 100,
});

/** A dispatcher whose queue finds webhook 7 due and lets one claim take `claimed(now)`; each fake may be replaced. */
function dispatcherWith(
  fakes: {
    queue?: object;
    transitions?: object;
    runner?: object;
    metrics?: object;
    claimed?: (now: number) => ClaimedDelivery[];
  } = {},
) {
  let claims = 0;
  const queue = {
    scan: vi.fn(async (now: number) => ({
      due: [
        {
          webhookId: 7,
          organizationId: 3,
          freshDueAt: now - 1,
          retryDueAt: null,
          rateLimit: null,
          rateNextAt: null,
          breakerOpenUntil: null,
        },
      ],
      disabled: [] as number[],
    })),
    claim: vi.fn(async (_tx: unknown, _asks: unknown, now: number) =>
      claims++ === 0 ? (fakes.claimed ?? ((at) => [delivery(11, at)]))(now) : [],
    ),
    bodies: vi.fn(async (eventIds: readonly string[]) => eventIds.map((eventId) => ({ eventId, organizationId: 3, payload: {} }))),
    targets: vi.fn(async (webhookIds: readonly number[]) => new Map(webhookIds.map((id) => [id, () => target]))),
    ...fakes.queue,
  };
  const transitions = {
    record: vi.fn(async (_tx: unknown, batch: readonly { id: number }[]) => ({
      recorded: new Set(batch.map(({ id }) => id)),
      written: batch,
      unhealthy: new Set(),
    })),
    release: vi.fn(async () => undefined),
    cancel: vi.fn(async () => undefined),
    failUnattempted: vi.fn(async () => undefined),
    failLeftPending: vi.fn(async () => undefined),
    ...fakes.transitions,
  };
  const runner = { openBody: () => Buffer.from('{}'), run: vi.fn(async () => OK), ...fakes.runner };
  const work = { run: async (unit: (tx: unknown) => unknown) => unit({}) };
  const health = { afterAttempts: async () => new Map() };
  const config = {
    delivery: {
      concurrency: 8,
      pollMs: 50,
      timeoutMs: TIMEOUT_MS,
      retrySchedule: [5],
      maxInFlightPerWebhook: 4,
      bufferBytes: 1024 * 1024,
    },
  };
  const logger = { warn: vi.fn(), error: vi.fn(), info: vi.fn() };
  const dispatcher = new DeliveryDispatcher(
    queue as unknown as DeliveryQueue,
    transitions as unknown as DeliveryTransitions,
    work as unknown as DispatchWork,
    runner as unknown as AttemptRunner,
    health as unknown as EndpointHealthService,
    { disable: vi.fn() } as unknown as WebhookDisablingService,
    { connect: () => undefined } as unknown as DispatchSignal,
    { attemptMade: () => undefined, ...fakes.metrics } as unknown as Metrics,
    config as unknown as AppConfig,
    logger as unknown as Logger,
  );
  dispatcher.onApplicationBootstrap();
  return { dispatcher, queue, transitions, runner, logger };
}

describe('DeliveryDispatcher', () => {
  let running: DeliveryDispatcher | undefined;
  const start = (fakes: Parameters<typeof dispatcherWith>[0] = {}) => {
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
    const started = dispatcherWith(fakes);
    running = started.dispatcher;
    return started;
  };
  afterEach(async () => {
    await running?.beforeApplicationShutdown();
    running = undefined;
    skew = 0;
    vi.restoreAllMocks();
  });

  it("gives a claim's deliveries back unattempted when their bodies cannot be read", async () => {
    const { transitions, runner } = start({
      claimed: (now) => [delivery(11, now), delivery(12, now)],
      queue: { bodies: vi.fn().mockRejectedValue(new Error('pool timeout')) },
    });
    await vi.waitFor(() => expect(transitions.release).toHaveBeenCalledWith([11, 12], expect.any(String), expect.any(Number)));
    expect(runner.run).not.toHaveBeenCalled();
    expect(transitions.record).not.toHaveBeenCalled();
  });

  it('gives a delivery back unattempted when its lease has run low by the time its webhook is read', async () => {
    const { transitions, runner } = start({
      claimed: (now) => [delivery(11, now, MIN_LEASE_LEFT_MS + 3000)],
      queue: {
        targets: vi.fn(async (webhookIds: readonly number[]) => {
          skew += 5000;
          return new Map(webhookIds.map((id) => [id, () => target]));
        }),
      },
    });
    await vi.waitFor(() => expect(transitions.release).toHaveBeenCalledWith([11], expect.any(String), expect.any(Number)));
    expect(runner.run).not.toHaveBeenCalled();
  });

  it("gives a rate-limited delivery back unsent when it could not go out within its slot's grace", async () => {
    const { transitions, runner } = start({ claimed: (now) => [{ ...delivery(11, now), notBefore: now - 1000, notAfter: now - 900 }] });
    await vi.waitFor(() => expect(transitions.release).toHaveBeenCalledWith([11], expect.any(String), expect.any(Number)));
    expect(runner.run).not.toHaveBeenCalled();
  });

  it('sends a rate-limited delivery on its slot, not before', async () => {
    let slot = 0;
    let sentAt: Date | undefined;
    start({
      claimed: (now) => {
        slot = now + 150;
        return [{ ...delivery(11, now), notBefore: slot, notAfter: slot + 5000 }];
      },
      runner: {
        run: vi.fn(async (_delivery: unknown, _target: unknown, _body: unknown, at: Date) => {
          sentAt = at;
          return OK;
        }),
      },
    });
    await vi.waitFor(() => expect(sentAt).toBeDefined());
    expect(sentAt!.getTime()).toBeGreaterThanOrEqual(slot);
  });

  it('gives a delivery back when its attempt fails unexpectedly, rather than leaving it claimed until its lease ends', async () => {
    const { transitions } = start({ runner: { run: vi.fn().mockRejectedValue(new TypeError('not a function')) } });
    await vi.waitFor(() => expect(transitions.release).toHaveBeenCalledWith([11], expect.any(String), expect.any(Number)));
    expect(transitions.record).not.toHaveBeenCalled();
  });

  it('keeps a sent delivery claimed when an error of ours follows the sending, rather than send it again at once', async () => {
    const { transitions, runner, logger } = start({
      metrics: {
        attemptMade: () => {
          throw new TypeError('not a function');
        },
      },
    });
    await vi.waitFor(() => expect(logger.warn).toHaveBeenCalled());
    expect(runner.run).toHaveBeenCalledTimes(1);
    expect(transitions.release).not.toHaveBeenCalled();
  });

  it('gives back at shutdown, by their ids, the claims whose outcome could not be recorded', async () => {
    const { dispatcher, transitions, runner } = start({
      transitions: { record: vi.fn().mockRejectedValue(new Error('database cut off')) },
    });
    await vi.waitFor(() => expect(transitions.record).toHaveBeenCalled());
    expect(runner.run).toHaveBeenCalledTimes(1);
    await dispatcher.beforeApplicationShutdown();
    expect(transitions.release).toHaveBeenCalledWith([11], expect.any(String), expect.any(Number));
  });

  it('fails the deliveries its scan finds left pending on a disabled webhook', async () => {
    const { transitions } = start({ queue: { scan: vi.fn(async () => ({ due: [], disabled: [9] })) } });
    await vi.waitFor(() => expect(transitions.failLeftPending).toHaveBeenCalledWith([9], expect.any(Number)));
  });
});
