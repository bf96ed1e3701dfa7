import { Injectable } from '@nestjs/common';
import type { Transaction } from '../database/unit-of-work';
import { OperatorChanges } from '../identity/identity-ports';
import type { AuditChange } from './audit.model';
import { AuditRepository } from './audit.repository';

/**
 * Records a change to an organization's webhooks, or a card added to a wallet (docs/api.md 10.9,
 * 6.1), in the change's own transaction, by the actor its unit of work was opened with
 * (common/actor.ts): a user's id, or null for the service itself and for the operator. What the operator does (a recovery from the CLI, the one
 * such change it makes) is in the operator's trail too (docs/api.md 8), in the same transaction.
 */
@Injectable()
export class AuditTrail {
  constructor(
    private readonly entries: AuditRepository,
    private readonly identity: OperatorChanges,
  ) {}

  async record(tx: Transaction, change: AuditChange, at = new Date()): Promise<void> {
    const { actor } = tx;
    if (actor === undefined) throw new Error('a change is being recorded with no actor: open its unit of work with one');
    await this.entries.insert(tx, change, actor.kind === 'user' ? actor.userId : null, at);
    if (actor.kind === 'operator' && change.action === 'delivery.recovered') {
      await this.identity.recordOperatorChange(
        tx,
        { action: change.action, organization: change.organizationId, webhook: change.webhook },
        at,
      );
    }
  }
}
