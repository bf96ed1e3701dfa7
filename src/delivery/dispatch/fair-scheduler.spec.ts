import { describe, expect, it } from 'vitest';
import { DueWebhook, fairShares } from './fair-scheduler';

const due = (webhookId: number, organizationId: number, dueAt = webhookId): DueWebhook => ({ webhookId, organizationId, dueAt });
const asObject = (shares: Map<number, number>) => Object.fromEntries(shares);

describe('fairShares', () => {
  it('gives a webhook no more than its room, however old its backlog', () => {
    expect(asObject(fairShares([due(1, 1, 0), due(2, 2, 5_000)], 32, () => 4))).toEqual({ 1: 4, 2: 4 });
  });

  it('lets organizations take turns: one with many webhooks gets no more slots than one with a single webhook', () => {
    const many = [1, 2, 3, 4, 5, 6].map((id) => due(id, 1, 0));
    const shares = fairShares([...many, due(7, 2, 100)], 4, () => 4);
    expect(shares.get(7)).toBe(2);
    expect([1, 2, 3, 4, 5, 6].reduce((sum, id) => sum + (shares.get(id) ?? 0), 0)).toBe(2);
  });

  it('rotates among the webhooks of one organization, the oldest due first', () => {
    expect(asObject(fairShares([due(1, 1, 30), due(2, 1, 10), due(3, 1, 20)], 2, () => 4))).toEqual({ 2: 1, 3: 1 });
  });

  it('serves the organization whose delivery waited longest first when slots are short', () => {
    expect(asObject(fairShares([due(1, 1, 50), due(2, 2, 10)], 1, () => 4))).toEqual({ 2: 1 });
  });

  it('gives nothing to a webhook without room (its slots are taken, or its breaker is open)', () => {
    expect(asObject(fairShares([due(1, 1), due(2, 2)], 8, (id) => (id === 1 ? 0 : 2)))).toEqual({ 2: 2 });
  });

  it('hands out no more than the free slots', () => {
    const shares = fairShares(
      [1, 2, 3, 4, 5].map((id) => due(id, id)),
      3,
      () => 4,
    );
    expect([...shares.values()].reduce((a, b) => a + b, 0)).toBe(3);
  });

  it('gives nothing when nothing is due or nothing is free', () => {
    expect(fairShares([], 8, () => 4).size).toBe(0);
    expect(fairShares([due(1, 1)], 0, () => 4).size).toBe(0);
  });
});
