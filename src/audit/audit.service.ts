import { Injectable } from '@nestjs/common';
import type { PageQueryDto } from '../common/page-query.dto';
import { PageCursors } from '../crypto/page-cursors';
import { AuditRepository } from './audit.repository';
import type { AuditEntryDto, AuditPageDto } from './dto/audit.dto';

/** The audit trail of one organization, newest first, a page at a time. */
@Injectable()
export class AuditService {
  constructor(
    private readonly audit: AuditRepository,
    private readonly cursors: PageCursors,
  ) {}

  async page(organizationId: number, { limit, cursor }: PageQueryDto): Promise<AuditPageDto> {
    const scope = `audit:${organizationId}`;
    const beforeId = cursor === undefined ? undefined : this.cursors.decode(cursor, scope).position;
    const rows = await this.audit.page(organizationId, beforeId, limit + 1);
    const data = rows.slice(0, limit).map((row): AuditEntryDto => ({
      id: row.id,
      at: row.at.toISOString(),
      actor: row.actorUserId === null ? null : { user: row.actorUserId, email: row.actorEmail },
      action: row.action,
      // docs/api.md 10.9: a card's entry names the card (its id as a string) where a webhook's names
      // the webhook; AuditRepository.insert writes exactly one of the two.
      ...(row.cardId === null ? { webhook: row.webhook! } : { card: String(row.cardId) }),
      fields: row.fields,
    }));
    return { data, next: rows.length > limit ? this.cursors.encode(scope, data[data.length - 1].id) : null };
  }
}
