import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../../config/app-config';
import { SecretBox } from '../../crypto/secret-box';
import type { AttemptSpan, Tracing } from '../../tracing/tracing';
import { signingSecretBinding } from '../../webhooks/webhook.model';
import type { WebhookTarget } from '../../webhooks/webhook-sql';
import { TargetCredentials } from '../../webhooks/target-credentials';
import type { AttemptOutcome } from './attempt-outcome';
import { AttemptRunner } from './attempt-runner';
import type { ClaimedDelivery } from './delivery-queue';
import type { AttemptRequest, WebhookSender } from './webhook-sender';

/* One attempt under its span (docs/api.md 10.17): the span's context goes to the sender as a value, and the span ends with the outcome as classified. */

const config = { delivery: { timeoutMs: 1000 }, secretKeys: { current: randomBytes(32), previous: [] } } as unknown as AppConfig;
const secrets = new SecretBox(config);
const delivery = { id: 11, webhookId: 7, organizationId: 3, eventId: 'evt_1', attempts: 2 } as ClaimedDelivery;
const target = {
  name: 'hook',
  url: 'https://hooks.example.com/in?key=q',
  secret: secrets.seal('whsec_' + Buffer.alloc(32).toString('base64'), signingSecretBinding(3, 'hook')),
  disabled: false,
} as WebhookTarget;
const EVENT = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceState: 'congo=1' };
const ATTEMPT = { ...EVENT, spanId: 'c'.repeat(16) };

function runnerSending(send: (request: AttemptRequest) => Promise<AttemptOutcome>) {
  const ended: unknown[] = [];
  const facts: unknown[] = [];
  const tracing = {
    attemptSpan: (event: unknown, readFacts: () => unknown): AttemptSpan => {
      facts.push([event, readFacts()]);
      return { context: ATTEMPT, end: (outcome) => ended.push(outcome) };
    },
  };
  const sender = { send: vi.fn(send) };
  const runner = new AttemptRunner(
    sender as unknown as WebhookSender,
    secrets,
    new TargetCredentials(secrets),
    tracing as unknown as Tracing,
    { error: vi.fn() } as unknown as Logger,
    config,
  );
  return { runner, sender, ended, facts };
}

describe('AttemptRunner (docs/api.md 10.3, 10.17)', () => {
  it("opens the attempt's span in its event's trace, and hands the sender the span's context", async () => {
    const { runner, sender, facts } = runnerSending(async () => ({ kind: 'answered', status: 204, durationMs: 3 }));
    await runner.run(delivery, target, Buffer.from('{}'), new Date(), EVENT);
    expect(facts).toEqual([[EVENT, { deliveryId: 11, eventId: 'evt_1', attempt: 3, url: target.url }]]);
    expect(sender.send.mock.calls[0][0].trace).toEqual(ATTEMPT);
  });

  it('answers the outcome as classified, and ends the span with it', async () => {
    const { runner, ended } = runnerSending(async () => ({ kind: 'answered', status: 503, durationMs: 3 }));
    const outcome = await runner.run(delivery, target, Buffer.from('{}'), new Date(), EVENT);
    expect(outcome).toMatchObject({ ok: false, status: 503, error: 'http 503' });
    expect(ended).toEqual([outcome]);
  });

  it('ends the span as failed when the attempt throws, and lets the error through', async () => {
    const { runner, ended } = runnerSending(() => Promise.reject(new TypeError('not a function')));
    await expect(runner.run(delivery, target, Buffer.from('{}'), new Date(), EVENT)).rejects.toThrow('not a function');
    expect(ended).toEqual([{ ok: false, status: null, error: null }]);
  });

  it("derives the trace of an event accepted before traces were kept from the event's id", async () => {
    const { runner, facts } = runnerSending(async () => ({ kind: 'answered', status: 204, durationMs: 3 }));
    await runner.run(delivery, target, Buffer.from('{}'), new Date(), undefined);
    expect((facts[0] as unknown[])[0]).toEqual({
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
  });
});
