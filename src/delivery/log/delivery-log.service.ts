import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/domain-error';
import { AttemptRow, DeliveryLogRepository, DeliveryRow, LogFilters, LogPosition } from './delivery-log.repository';
import { PageCursors } from '../../crypto/page-cursors';
import { WebhooksRepository } from '../../webhooks/webhooks.repository';
import type { AttemptDto, DeliveryDetailDto, DeliveryDto, DeliveryPageDto } from './dto/delivery-log.dto';
import type { DeliveryLogQueryDto } from './dto/delivery-log-query.dto';

/** One delivery as the log shows it (docs/api.md 10.7): never the receiver's answer, never an address. */
function deliveryOf(row: DeliveryRow): DeliveryDto {
  return {
    id: row.id,
    event: { id: row.eventId, type: row.eventType, createdAt: row.eventCreatedAt.toISOString() },
    state: row.state,
    attempts: row.attempts,
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.state === 'pending' ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    lastAttempt:
      row.lastAttemptAt === null
        ? null
        : { at: row.lastAttemptAt.toISOString(), durationMs: row.lastDurationMs ?? 0, status: row.lastStatus, error: row.lastError },
  };
}

const attemptOf = (row: AttemptRow): AttemptDto => ({
  at: row.at.toISOString(),
  durationMs: row.durationMs,
  status: row.status,
  error: row.error,
});

/** The cursor's scope: the webhook and every filter, so that a cursor serves only the list it came from. */
const scopeOf = (webhookId: number, { state, type, since, until }: LogFilters): string =>
  `deliveries:${webhookId}:${state ?? ''}:${type ?? ''}:${since?.getTime() ?? ''}:${until?.getTime() ?? ''}`;

/**
 * The delivery log of one webhook (docs/api.md 10.7): newest first, filtered by state, event
 * type and creation time, in pages whose `next` cursor keeps the filters and stays valid while
 * new deliveries arrive. A webhook the organization does not have is 404, whoever else has one
 * of that name.
 */
@Injectable()
export class DeliveryLogService {
  constructor(
    private readonly log: DeliveryLogRepository,
    private readonly webhooks: WebhooksRepository,
    private readonly cursors: PageCursors,
  ) {}

  async page(organizationId: number, name: string, query: DeliveryLogQueryDto): Promise<DeliveryPageDto> {
    const webhookId = await this.webhookId(organizationId, name);
    const filters: LogFilters = {
      state: query.state ?? null,
      type: query.type ?? null,
      since: query.since ?? null,
      until: query.until ?? null,
    };
    const scope = scopeOf(webhookId, filters);
    const after = query.cursor === undefined ? undefined : this.cursors.decode<LogPosition>(query.cursor, scope);
    const rows = await this.log.page(webhookId, filters, after, query.limit + 1);
    const data = rows.slice(0, query.limit).map(deliveryOf);
    const last = rows[query.limit - 1];
    const next = rows.length > query.limit ? this.cursors.encode(scope, [last.createdAt.getTime(), last.id]) : null;
    return { data, next };
  }

  async detail(organizationId: number, name: string, id: number): Promise<DeliveryDetailDto> {
    const webhookId = await this.webhookId(organizationId, name);
    const row = await this.log.findOne(webhookId, id);
    if (row === undefined) throw Errors.notFound();
    return { ...deliveryOf(row), attemptLog: (await this.log.attempts(id)).map(attemptOf) };
  }

  private async webhookId(organizationId: number, name: string): Promise<number> {
    const webhook = await this.webhooks.findIdentity(organizationId, name);
    if (webhook === undefined) throw Errors.notFound();
    return webhook.id;
  }
}
