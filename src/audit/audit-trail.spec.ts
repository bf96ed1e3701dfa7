import { describe, expect, it, vi } from 'vitest';
import type { Transaction } from '../database/unit-of-work';
import { actingAs, OPERATOR, SERVICE } from '../identity/actor';
import type { IdentityService } from '../identity/identity.service';
import type { AuditChange } from './audit.model';
import type { AuditRepository } from './audit.repository';
import { AuditTrail } from './audit-trail';

const TX = {} as Transaction;
const AT = new Date('2026-01-02T03:04:05.000Z');
const change = (action: AuditChange['action']): AuditChange => ({ organizationId: 3, action, webhook: 'hook', fields: ['url'] });

function setUp() {
  const entries = { insert: vi.fn(async () => undefined) };
  const identity = { recordOperatorChange: vi.fn(async () => undefined) };
  const trail = new AuditTrail(entries as unknown as AuditRepository, identity as unknown as IdentityService);
  return { trail, entries, identity };
}

describe('AuditTrail.record (docs/api.md 10.9, 8)', () => {
  it("records a user's change as theirs, in the change's transaction", async () => {
    const { trail, entries, identity } = setUp();
    await actingAs({ kind: 'user', userId: 41 }, () => trail.record(TX, change('webhook.updated'), AT));
    expect(entries.insert.mock.calls).toEqual([[TX, change('webhook.updated'), 41, AT]]);
    expect(identity.recordOperatorChange).not.toHaveBeenCalled();
  });

  it("records the service's own change with no actor", async () => {
    const { trail, entries } = setUp();
    await actingAs(SERVICE, () => trail.record(TX, change('webhook.disabled'), AT));
    expect(entries.insert.mock.calls).toEqual([[TX, change('webhook.disabled'), null, AT]]);
  });

  it("records the operator's recovery with no actor, and in the operator's trail too, in the same transaction", async () => {
    const { trail, entries, identity } = setUp();
    await actingAs(OPERATOR, () => trail.record(TX, change('delivery.recovered'), AT));
    expect(entries.insert.mock.calls).toEqual([[TX, change('delivery.recovered'), null, AT]]);
    expect(identity.recordOperatorChange.mock.calls).toEqual([
      [TX, { action: 'delivery.recovered', organization: 3, webhook: 'hook' }, AT],
    ]);
  });

  it('records nothing for a change made outside any actor', async () => {
    const { trail, entries } = setUp();
    await expect(trail.record(TX, change('webhook.created'), AT)).rejects.toThrow(/no actor/);
    expect(entries.insert).not.toHaveBeenCalled();
  });
});
