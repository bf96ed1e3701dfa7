import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import type { AppConfig } from '../config/app-config';
import { PageCursors } from '../crypto/page-cursors';
import type { AuditRepository, AuditRow } from './audit.repository';
import { AuditService } from './audit.service';

/** Entries with ids 1..count of organization 7, every third by the service itself; the repository's page over them. */
function setUp(count: number) {
  const rows: AuditRow[] = Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
    actorUserId: i % 3 === 0 ? null : 40 + i,
    actorEmail: i % 3 === 0 ? null : `user${i}@example.test`,
    action: 'webhook.updated',
    webhook: 'hook',
    cardId: null,
    fields: ['url'],
  }));
  const asked: (number | undefined)[] = [];
  const repository = {
    page: async (organizationId: number, beforeId: number | undefined, limit: number) => {
      asked.push(beforeId);
      if (organizationId !== 7) return [];
      return rows
        .filter((row) => beforeId === undefined || row.id < beforeId)
        .sort((a, b) => b.id - a.id)
        .slice(0, limit);
    },
  } as unknown as AuditRepository;
  const cursors = new PageCursors({ secretKeys: { current: randomBytes(32) } } as unknown as AppConfig);
  return { service: new AuditService(repository, cursors), asked, rows };
}

describe('AuditService.page (docs/api.md 10.9)', () => {
  it('shows each entry with its actor (null: the service itself), its time in ISO 8601 and the names of the fields changed', async () => {
    const { service } = setUp(2);
    expect((await service.page(7, { limit: 50 })).data).toEqual([
      {
        id: 2,
        at: '2026-01-01T00:00:01.000Z',
        actor: { user: 41, email: 'user1@example.test' },
        action: 'webhook.updated',
        webhook: 'hook',
        fields: ['url'],
      },
      { id: 1, at: '2026-01-01T00:00:00.000Z', actor: null, action: 'webhook.updated', webhook: 'hook', fields: ['url'] },
    ]);
  });

  it('names the card of a card.provisioned entry, as a string, instead of a webhook (docs/api.md 10.9, 6.1)', async () => {
    const { service, rows } = setUp(1);
    rows[0] = { ...rows[0], action: 'card.provisioned', webhook: null, cardId: 42, fields: ['apple'] };
    expect((await service.page(7, { limit: 50 })).data).toEqual([
      { id: 1, at: '2026-01-01T00:00:00.000Z', actor: null, action: 'card.provisioned', card: '42', fields: ['apple'] },
    ]);
  });

  it('walks every entry once, newest first, a page at a time, and ends with next null', async () => {
    const { service, asked } = setUp(5);
    const seen: number[] = [];
    let next: string | null | undefined;
    do {
      const page = await service.page(7, { limit: 2, cursor: next ?? undefined });
      seen.push(...page.data.map((entry) => entry.id));
      next = page.next;
    } while (next !== null);
    expect(seen).toEqual([5, 4, 3, 2, 1]);
    expect(asked).toEqual([undefined, 4, 2]);
  });

  it('gives no next when the last page is exactly full', async () => {
    const { service } = setUp(2);
    expect((await service.page(7, { limit: 2 })).next).toBeNull();
  });

  it("answers another organization's cursor 400 bad request", async () => {
    const { service } = setUp(3);
    const { next } = await service.page(7, { limit: 1 });
    expect(await rejectionOf(service.page(8, { limit: 1, cursor: next! }))).toEqual({
      status: 400,
      body: { code: 'bad request', message: ['cursor: belongs to another list or filter'] },
    });
  });
});
