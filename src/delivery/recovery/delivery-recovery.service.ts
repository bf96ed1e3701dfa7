import type { Actor } from '../../common/actor';
import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../../audit/audit-trail';
import { Errors } from '../../common/domain-error';
import { AppConfig } from '../../config/app-config';
import { isUniqueViolation } from '../../database/database-errors';
import { UnitOfWork } from '../../database/unit-of-work';
import { WebhookAccess } from '../../webhooks/webhook-access';
import { DispatchSignal } from '../dispatch-signal';
import { IDEMPOTENCY_WINDOW_MS } from '../events/event-ingest.service';
import { PendingLimit } from '../events/pending-limit';
import type { RecoveredDeliveriesDto } from './dto/recovery.dto';
import { BatchOutcome, KeyedRecovery, RECOVERY_TRANSACTION, RecoveriesRepository } from './recoveries.repository';
import { RecoveryRequest, recoveryRequestHash, RecoveryWindow, recoveryWindowOf } from './recovery-window';
import { RecoveryWorker } from './recovery-worker';
import { WebhookRecoveries } from './webhook-recoveries';

/**
 * `POST {p}/webhook/{name}/recover` and `webhook recover` (docs/api.md 10.14): every failed
 * delivery of a webhook created in a window is sent again. The answer comes at once, whatever
 * the number: the request counts them (one index range) and records the recovery, with its first
 * batch and its audit entry, in one short transaction (a recovery of up to RECOVERY_BATCH is done
 * when answered); RecoveryWorker does the rest in batches. The transaction reads the webhook's
 * row under a share lock first, as a replay does, so that a disabling is wholly before it (409,
 * nothing recorded) or after it; the 'duplicate' of a lost race on its idempotency key rolls it
 * back. Under an
 * `Idempotency-Key` (as 10.1: the same webhook, 24 h) the unique index (webhook, key) decides
 * races on any number of instances: the loser answers what the winner did, and nothing is
 * recovered twice; the same key with another window is 409 `idempotency conflict`.
 */
@Injectable()
export class DeliveryRecoveryService implements WebhookRecoveries {
  private readonly retentionDays: number;

  constructor(
    private readonly webhooks: WebhookAccess,
    private readonly recoveries: RecoveriesRepository,
    private readonly work: UnitOfWork,
    private readonly audit: AuditTrail,
    private readonly worker: RecoveryWorker,
    private readonly dispatch: DispatchSignal,
    private readonly pending: PendingLimit,
    config: AppConfig,
  ) {
    this.retentionDays = config.delivery.retentionDays;
  }

  /**
   * 400 a window out of bounds, 404 no such webhook, then the replay of an idempotency key, then
   * 409 a disabled webhook, then 429 when the deliveries it would make pending take the
   * organization past DELIVERY_PENDING_PER_ORG_MAX; a replay is answered as the first call was also once its `since` has
   * left the retention. The audit entry is the actor's (a user's; the operator's, from the CLI, is
   * in the operator's trail too).
   */
  async recover(
    organizationId: number,
    actor: Actor,
    name: string,
    request: RecoveryRequest,
    idempotencyKey?: string,
  ): Promise<RecoveredDeliveriesDto> {
    const requestedAt = new Date();
    const requestHash = recoveryRequestHash(request);
    let window: RecoveryWindow;
    try {
      window = recoveryWindowOf(request, requestedAt, this.retentionDays);
    } catch (outOfBounds) {
      // A repeat of a key is answered as its first call was, though its since has left the retention since.
      const found = idempotencyKey === undefined ? undefined : await this.webhooks.findIdentity(organizationId, name);
      const earlier = found && (await this.earlier(found.id, idempotencyKey!, requestedAt));
      if (earlier === undefined) throw outOfBounds;
      return replay(earlier, requestHash);
    }
    const webhook = await this.webhooks.findIdentity(organizationId, name);
    if (webhook === undefined) throw Errors.notFound();
    const earlier = idempotencyKey === undefined ? undefined : await this.earlier(webhook.id, idempotencyKey, requestedAt);
    if (earlier !== undefined) return replay(earlier, requestHash);
    const outcome = await this.work
      .run(
        async (tx): Promise<({ deliveries: number } & BatchOutcome) | 'disabled' | 'gone'> => {
          const held = await this.webhooks.lockShared(tx, webhook.id);
          if (held !== 'enabled') return held;
          const { id, deliveries } = await this.recoveries.insert(tx, {
            webhookId: webhook.id,
            idempotencyKey,
            requestHash,
            window,
            requestedAt,
          });
          // Past the organization's pending limit: 429, and the rollback records nothing.
          await this.pending.checkRoom(tx, organizationId, deliveries);
          const first = await this.recoveries.batch(tx, { id, webhookId: webhook.id, window, after: undefined }, requestedAt, null);
          await this.audit.record(
            tx,
            { organizationId, action: 'delivery.recovered', webhook: name, fields: ['since', 'until'] },
            requestedAt,
          );
          return { deliveries, ...first };
        },
        { ...RECOVERY_TRANSACTION, actor },
      )
      .catch((error: unknown) => {
        if (isUniqueViolation(error)) return 'duplicate' as const;
        throw error;
      });
    if (outcome === 'gone') throw Errors.notFound();
    if (outcome === 'disabled') throw Errors.disabled();
    if (outcome === 'duplicate') {
      const winner = await this.recoveries.findByIdempotencyKey(webhook.id, idempotencyKey!);
      if (winner === undefined) throw Errors.unavailable();
      return replay(winner, requestHash);
    }
    this.pending.added(organizationId, outcome.deliveries);
    if (outcome.recovered > 0) this.dispatch.wake();
    if (outcome.state === 'more') this.worker.wake();
    return { deliveries: outcome.deliveries };
  }

  /** The recovery the webhook made under this key within its window, if any: a key older than that is freed for the new one. */
  private async earlier(webhookId: number, idempotencyKey: string, now: Date): Promise<KeyedRecovery | undefined> {
    const earlier = await this.recoveries.findByIdempotencyKey(webhookId, idempotencyKey);
    if (earlier === undefined || now.getTime() - earlier.requestedAt.getTime() < IDEMPOTENCY_WINDOW_MS) return earlier;
    await this.recoveries.forgetIdempotencyKey(earlier.id);
    return undefined;
  }
}

function replay(earlier: KeyedRecovery, requestHash: string): RecoveredDeliveriesDto {
  if (earlier.requestHash !== requestHash) throw Errors.idempotencyConflict();
  return { deliveries: earlier.deliveries };
}
