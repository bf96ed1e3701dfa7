import { describe, expect, it, vi } from 'vitest';
import { OPERATOR } from '../../common/actor';
import { Errors } from '../../common/domain-error';
import type { AuditTrail } from '../../audit/audit-trail';
import type { AppConfig } from '../../config/app-config';
import type { UnitOfWork } from '../../database/unit-of-work';
import type { WebhookAccess } from '../../webhooks/webhook-access';
import type { DispatchSignal } from '../dispatch-signal';
import type { PendingLimit } from '../events/pending-limit';
import { DeliveryRecoveryService } from './delivery-recovery.service';
import type { KeyedRecovery, RecoveriesRepository } from './recoveries.repository';
import { recoveryRequestHash } from './recovery-window';
import type { RecoveryWorker } from './recovery-worker';

const HOUR = 3600_000;
const RETENTION_DAYS = 7;
const ACTOR = OPERATOR;

/**
 * The service over fakes: the webhook enabled when looked up, `held` when its transaction locks
 * it; `earlier` under any key; three failed deliveries in any window, and room for them unless `full`.
 */
function recoveryOf({
  held = 'enabled',
  earlier,
  full = false,
}: { held?: 'enabled' | 'disabled' | 'gone'; earlier?: KeyedRecovery; full?: boolean } = {}) {
  const webhooks = {
    findIdentity: vi.fn(async () => ({ id: 5, disabled: false })),
    lockShared: vi.fn(async () => held),
  };
  const recoveries = {
    findByIdempotencyKey: vi.fn(async () => earlier),
    insert: vi.fn(async () => ({ id: 9, deliveries: 3 })),
    batch: vi.fn(async () => ({ state: 'done', recovered: 3 })),
  };
  const tx = { afterCommit: () => undefined };
  const work = { run: vi.fn(async (unit: (given: typeof tx) => Promise<unknown>) => unit(tx)) };
  const audit = { record: vi.fn(async () => undefined) };
  const wake = { wake: vi.fn() };
  const config = { delivery: { retentionDays: RETENTION_DAYS } };
  const pending = {
    checkRoom: vi.fn(async () => {
      if (full) throw Errors.queueFull(30);
    }),
    added: vi.fn(),
  };
  const service = new DeliveryRecoveryService(
    webhooks as unknown as WebhookAccess,
    recoveries as unknown as RecoveriesRepository,
    work as unknown as UnitOfWork,
    audit as unknown as AuditTrail,
    wake as unknown as RecoveryWorker,
    wake as unknown as DispatchSignal,
    pending as unknown as PendingLimit,
    config as unknown as AppConfig,
  );
  return { service, recoveries, audit, webhooks, pending, tx };
}

describe('DeliveryRecoveryService.recover', () => {
  it('answers 409 disabled, recording nothing, for a webhook disabled by the time its transaction locks it', async () => {
    const { service, recoveries, audit } = recoveryOf({ held: 'disabled' });
    const refused = service.recover(3, ACTOR, 'w', { since: new Date(Date.now() - HOUR) });
    await expect(refused).rejects.toMatchObject({ status: 409, code: 'disabled', details: undefined });
    expect(recoveries.insert).not.toHaveBeenCalled();
    expect(audit.record).not.toHaveBeenCalled();
  });

  it('answers 404 for a webhook deleted by the time its transaction locks it', async () => {
    const { service, recoveries } = recoveryOf({ held: 'gone' });
    await expect(service.recover(3, ACTOR, 'w', { since: new Date(Date.now() - HOUR) })).rejects.toMatchObject({
      status: 404,
      code: 'not found',
    });
    expect(recoveries.insert).not.toHaveBeenCalled();
  });

  it('answers a window out of bounds 400 before the webhook is looked up', async () => {
    const { service, webhooks } = recoveryOf();
    const since = new Date(Date.now() - RETENTION_DAYS * 24 * HOUR - HOUR);
    await expect(service.recover(3, ACTOR, 'w', { since })).rejects.toMatchObject({ status: 400, code: 'bad request' });
    expect(webhooks.findIdentity).not.toHaveBeenCalled();
  });

  it('answers a window out of bounds 400 under a key no earlier recovery holds', async () => {
    const { service, recoveries } = recoveryOf();
    const since = new Date(Date.now() - RETENTION_DAYS * 24 * HOUR - HOUR);
    await expect(service.recover(3, ACTOR, 'w', { since }, 'key-1')).rejects.toMatchObject({ status: 400, code: 'bad request' });
    expect(recoveries.insert).not.toHaveBeenCalled();
  });

  it('answers a repeat of its Idempotency-Key as the first call was, though its since has left the retention since', async () => {
    const since = new Date(Date.now() - RETENTION_DAYS * 24 * HOUR - HOUR); // within it when first asked, 2 h ago
    const first = { id: 9, requestHash: recoveryRequestHash({ since }), deliveries: 3, requestedAt: new Date(Date.now() - 2 * HOUR) };
    const { service, recoveries } = recoveryOf({ earlier: first });
    expect(await service.recover(3, ACTOR, 'w', { since }, 'key-1')).toEqual({ deliveries: 3 });
    expect(recoveries.insert).not.toHaveBeenCalled();
  });

  it("checks the organization's room for the deliveries it counted, in its own transaction, and counts them as added", async () => {
    const { service, pending, tx } = recoveryOf();
    expect(await service.recover(3, ACTOR, 'w', { since: new Date(Date.now() - HOUR) })).toEqual({ deliveries: 3 });
    expect(pending.checkRoom).toHaveBeenCalledWith(tx, 3, 3);
    expect(pending.added).toHaveBeenCalledWith(3, 3);
  });

  it('answers 429 queue full past the pending limit, before its first batch and its audit entry', async () => {
    const { service, recoveries, audit, pending } = recoveryOf({ full: true });
    const refused = service.recover(3, ACTOR, 'w', { since: new Date(Date.now() - HOUR) });
    await expect(refused).rejects.toMatchObject({ status: 429, code: 'queue full', retryAfterSeconds: 30 });
    expect(recoveries.batch).not.toHaveBeenCalled();
    expect(audit.record).not.toHaveBeenCalled();
    expect(pending.added).not.toHaveBeenCalled();
  });
});
