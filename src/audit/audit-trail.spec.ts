import { describe, expect, it, vi } from 'vitest';
import type { Transaction } from '../database/unit-of-work';
import { type Actor, OPERATOR, SERVICE } from '../common/actor';
import type { OperatorChanges } from '../identity/identity-ports';
import type { AuditChange, WebhookAuditAction } from './audit.model';
import type { AuditRepository } from './audit.repository';
import { AuditTrail } from './audit-trail';

const txOf = (actor?: Actor) => ({ actor }) as Transaction;
const AT = new Date('2026-01-02T03:04:05.000Z');
const change = (action: WebhookAuditAction): AuditChange => ({ organizationId: 3, action, webhook: 'hook', fields: ['url'] });

function setUp() {
  const entries = { insert: vi.fn(async () => undefined) };
  const identity = { recordOperatorChange: vi.fn(async () => undefined) };
  const trail = new AuditTrail(entries as unknown as AuditRepository, identity as unknown as OperatorChanges);
  return { trail, entries, identity };
}

describe('AuditTrail.record (docs/api.md 10.9, 8)', () => {
  it("records a user's change as theirs, in the change's transaction", async () => {
    const { trail, entries, identity } = setUp();
    const tx = txOf({ kind: 'user', userId: 41 });
    await trail.record(tx, change('webhook.updated'), AT);
    expect(entries.insert.mock.calls).toEqual([[tx, change('webhook.updated'), 41, AT]]);
    expect(identity.recordOperatorChange).not.toHaveBeenCalled();
  });

  it("records the service's own change with no actor", async () => {
    const { trail, entries } = setUp();
    const tx = txOf(SERVICE);
    await trail.record(tx, change('webhook.disabled'), AT);
    expect(entries.insert.mock.calls).toEqual([[tx, change('webhook.disabled'), null, AT]]);
  });

  it("records the operator's recovery with no actor, and in the operator's trail too, in the same transaction", async () => {
    const { trail, entries, identity } = setUp();
    const tx = txOf(OPERATOR);
    await trail.record(tx, change('delivery.recovered'), AT);
    expect(entries.insert.mock.calls).toEqual([[tx, change('delivery.recovered'), null, AT]]);
    expect(identity.recordOperatorChange.mock.calls).toEqual([
      [tx, { action: 'delivery.recovered', organization: 3, webhook: 'hook' }, AT],
    ]);
  });

  it("records a card added to a wallet as the card's user's, naming the card", async () => {
    const { trail, entries } = setUp();
    const tx = txOf({ kind: 'user', userId: 41 });
    const provisioned: AuditChange = { organizationId: 3, action: 'card.provisioned', card: 42, fields: ['google'] };
    await trail.record(tx, provisioned, AT);
    expect(entries.insert.mock.calls).toEqual([[tx, provisioned, 41, AT]]);
  });

  it('records nothing for a change whose unit of work has no actor', async () => {
    const { trail, entries } = setUp();
    await expect(trail.record(txOf(), change('webhook.created'), AT)).rejects.toThrow(/no actor/);
    expect(entries.insert).not.toHaveBeenCalled();
  });
});
