import type { ClassifiedOutcome } from './attempt-outcome';
import { AttemptRecorder } from './attempt-recorder';
import type { ClaimedDelivery } from './delivery-queue';
import type { Completion, DeliveryTransitions } from './delivery-transitions';
import type { DispatchWork } from './dispatch-database';
import type { EndpointHealthService, HealthVerdict } from './endpoint-health.service';
import { RetryPolicy } from './retry-policy';
import type { EndpointSignal } from './scheduling/endpoint-health';
import type { WebhookDisablingService } from './webhook-disabling.service';

/** An attempt's outcome to write, with what the endpoint's health needs of it. */
interface Recording extends Completion {
  readonly probe: boolean;
  readonly signal: EndpointSignal;
}

/** What recording an attempt came to: whether this instance still held its claim (else another claimer has it), and its endpoint's verdict. */
export interface Recorded {
  readonly held: boolean;
  readonly verdict?: HealthVerdict;
}

/**
 * The dispatcher's record step (docs/api.md 10.5, 10.10): each attempt's outcome with the retry
 * policy's next step, written in batches (AttemptRecorder) on the dispatcher's pool, each batch
 * one transaction with the endpoints' health; the webhooks a batch's verdicts disable are
 * disabled after it, outside DELIVERY_CONCURRENCY.
 */
export class AttemptRecords {
  private readonly policy: RetryPolicy;
  private readonly recorder: AttemptRecorder<Recording, { verdict?: HealthVerdict }>;
  /** Disablings that follow a recorded batch; `close` waits for them. */
  private readonly disablings = new Set<Promise<void>>();

  constructor(
    private readonly parts: {
      readonly transitions: DeliveryTransitions;
      readonly work: DispatchWork;
      readonly health: EndpointHealthService;
      readonly disabling: WebhookDisablingService;
      /** The dispatcher's claim token: only its claims are recorded. */
      readonly token: string;
      readonly retrySchedule: readonly number[];
      readonly warn: (error: unknown, message: string) => void;
    },
  ) {
    this.policy = new RetryPolicy(parts.retrySchedule);
    this.recorder = new AttemptRecorder((batch) => this.write(batch), parts.warn);
  }

  /** Records an attempt made at `at`: undefined when it could not be written before the claim's lease ends. */
  async record(delivery: ClaimedDelivery, outcome: ClassifiedOutcome, at: Date): Promise<Recorded | undefined> {
    const next = this.policy.after(delivery.attempts - delivery.retryFrom + 1, outcome, new Date());
    const record = { ...next, at, durationMs: outcome.durationMs, status: outcome.status, error: outcome.error };
    try {
      const recorded = await this.recorder.record(
        { id: delivery.id, webhookId: delivery.webhookId, record, probe: delivery.probe === true, signal: outcome.endpoint },
        delivery.leaseEndsAt,
      );
      return { held: recorded !== undefined, verdict: recorded?.verdict };
    } catch (error) {
      this.parts.warn(error, 'could not record a delivery attempt');
      return undefined;
    }
  }

  /** Shutdown: what is pending is written (tried once more each), then the disablings it causes end. */
  async close(): Promise<void> {
    await this.recorder.close();
    await Promise.all(this.disablings);
  }

  /** One batch of outcomes and their endpoints' health in one transaction; the webhooks it disables are disabled after. */
  private async write(batch: readonly Recording[]): Promise<Map<number, { verdict?: HealthVerdict }>> {
    const { transitions, work, health, token } = this.parts;
    const { recorded, verdicts } = await work.run(async (tx) => {
      const { recorded, written, unhealthy } = await transitions.record(tx, batch, token);
      const kept = new Set(written.map(({ id }) => id));
      const attempts = batch
        .filter(({ id }) => kept.has(id))
        .map(({ webhookId, record, signal, probe }) => ({ webhookId, signal, at: record.at.getTime(), probe }));
      return { recorded, verdicts: await health.afterAttempts(tx, attempts, unhealthy) };
    });
    for (const [webhookId, { disable }] of verdicts) if (disable) this.disableLater(webhookId);
    const webhookOf = new Map(batch.map(({ id, webhookId }) => [id, webhookId]));
    return new Map([...recorded].map((id) => [id, { verdict: verdicts.get(webhookOf.get(id)!) }]));
  }

  private disableLater(webhookId: number): void {
    const done = this.parts.disabling
      .disable(webhookId, new Date())
      .catch((error: unknown) => this.parts.warn(error, 'could not disable a webhook'));
    this.disablings.add(done);
    void done.finally(() => this.disablings.delete(done));
  }
}
