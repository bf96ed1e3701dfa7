import { WakeUp } from '../../common/wake-up';
import { randomBytes } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from 'pino';
import { AppConfig } from '../../config/app-config';
import { UnitOfWork } from '../../database/unit-of-work';
import { PINO } from '../../logging/pino.provider';
import { DispatchSignal } from '../dispatch-signal';
import { BatchOutcome, ClaimedRecovery, RECOVERY_TRANSACTION, RecoveriesRepository } from './recoveries.repository';
/** A claim outlives its last batch by this much: past it, another instance goes on with the recovery. */
const LEASE_MS = 60_000;

/**
 * Works the recoveries (docs/api.md 10.14) past their first batch, which the request made, on
 * every instance that delivers (DELIVERY_CONCURRENCY above 0; never the CLI): it claims a
 * recovery no other instance holds, makes its deliveries pending again RECOVERY_BATCH at a time,
 * each batch in a transaction of its own that also moves the recovery's position and lease, and
 * wakes this instance's dispatcher, which sends them as it sends everything: the webhook's rate limit and
 * the fair shares of 10.10 decide when. It looks every DELIVERY_POLL_MS, or at once when this
 * instance records a recovery. At shutdown it stops between batches and gives its claim back.
 */
@Injectable()
export class RecoveryWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly token = randomBytes(12).toString('base64url');
  private readonly pollMs: number;
  private readonly enabled: boolean;
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private readonly pause = new WakeUp();

  constructor(
    private readonly recoveries: RecoveriesRepository,
    private readonly work: UnitOfWork,
    private readonly dispatch: DispatchSignal,
    config: AppConfig,
    @Inject(PINO) private readonly logger: Logger,
  ) {
    this.pollMs = config.delivery.pollMs;
    this.enabled = config.delivery.concurrency > 0;
  }

  onApplicationBootstrap(): void {
    if (!this.enabled) return;
    this.running = true;
    this.loop = this.run();
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.wake();
    await this.loop;
  }

  /** A recovery was recorded that its first batch did not finish: look now rather than at the next poll. */
  wake(): void {
    this.pause.poke();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        const now = new Date();
        const recovery = await this.recoveries.claimNext(this.token, now, new Date(now.getTime() + LEASE_MS));
        if (recovery !== undefined) {
          await this.recover(recovery);
          continue;
        }
      } catch (error) {
        this.logger.warn({ err: { message: (error as Error).message } }, 'a recovery batch failed; it is tried again');
      }
      await this.pause.until(Date.now() + this.pollMs);
    }
  }

  private async recover(claimed: ClaimedRecovery): Promise<void> {
    let recovery = claimed;
    while (this.running) {
      const now = new Date();
      const outcome = await this.batch(recovery, now, new Date(now.getTime() + LEASE_MS));
      if (outcome.state !== 'lost' && outcome.recovered > 0) this.dispatch.wake();
      if (outcome.state !== 'more') return;
      recovery = { ...recovery, after: outcome.after };
      // Between batches, whatever else this instance has to do goes first.
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.recoveries.release(recovery.id, this.token);
  }

  /**
   * The next batch of a recovery this instance claimed, in one short transaction (the claim's
   * lease moves on with it); 'lost' when the claim is no longer this one's.
   */
  private batch(recovery: ClaimedRecovery, now: Date, leaseUntil: Date): Promise<BatchOutcome | { readonly state: 'lost' }> {
    return this.work.run(async (tx) => {
      if (!(await this.recoveries.lockClaim(tx, recovery.id, this.token))) return { state: 'lost' as const };
      return this.recoveries.batch(tx, recovery, now, leaseUntil);
    }, RECOVERY_TRANSACTION);
  }
}
