import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/domain-error';
import { dateOf } from '../../database/sql-dialect';
import { AttemptRow, DeliveryLogRepository, DeliveryRow } from './delivery-log.repository';
import { PageCursors } from '../../crypto/page-cursors';
import { WebhooksRepository } from '../../webhooks/webhooks.repository';
import type { AttemptDto, DeliveryDetailDto, DeliveryDto, DeliveryPageDto } from './dto/delivery-log.dto';
import type { DeliveryLogQueryDto } from './dto/delivery-log-query.dto';

const iso = (value: Date | string): string => dateOf(value).toISOString();
const isoOrNull = (value: Date | string | null): string | null => (value === null ? null : iso(value));

/** One delivery as the log shows it (docs/api.md 10.7): never the receiver's answer, never an address. */
function deliveryOf(row: DeliveryRow): DeliveryDto {
  return {
    id: Number(row.id),
    event: { id: row.eventId, type: row.eventType, createdAt: iso(row.eventCreatedAt) },
    state: row.state,
    attempts: Number(row.attempts),
    createdAt: iso(row.createdAt),
    nextAttemptAt: row.state === 'pending' ? isoOrNull(row.nextAttemptAt) : null,
    lastAttempt:
      row.lastAttemptAt === null
        ? null
        : {
            at: iso(row.lastAttemptAt),
            durationMs: Number(row.lastDurationMs),
            status: row.lastStatus === null ? null : Number(row.lastStatus),
            error: row.lastError,
          },
  };
}

const attemptOf = (row: AttemptRow): AttemptDto => ({
  at: iso(row.at),
  durationMs: Number(row.durationMs),
  status: row.status === null ? null : Number(row.status),
  error: row.error,
});

/**
 * The delivery log of one webhook (docs/api.md 10.7): newest first, in pages whose `next`
 * cursor stays valid while new deliveries arrive. A webhook the organization does not have is
 * 404, whoever else has one of that name.
 */
@Injectable()
export class DeliveryLogService {
  constructor(
    private readonly log: DeliveryLogRepository,
    private readonly webhooks: WebhooksRepository,
    private readonly cursors: PageCursors,
  ) {}

  async page(organizationId: number, name: string, { limit, state, cursor }: DeliveryLogQueryDto): Promise<DeliveryPageDto> {
    const webhookId = await this.webhookId(organizationId, name);
    const scope = `deliveries:${webhookId}:${state ?? ''}`;
    const beforeId = cursor === undefined ? undefined : this.cursors.decode(cursor, scope);
    const rows = await this.log.page(webhookId, { state: state ?? null, beforeId, limit: limit + 1 });
    const data = rows.slice(0, limit).map(deliveryOf);
    const next = rows.length > limit ? this.cursors.encode(scope, data[data.length - 1].id) : null;
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
