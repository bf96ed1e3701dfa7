import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/domain-error';
import { AttemptRow, DeliveryLogRepository, DeliveryRow, LogFilters, LogPosition } from './delivery-log.repository';
import { PageCursors, PageFilters } from '../../crypto/page-cursors';
import type { DeliveryState } from '../delivery.model';
import { TEST_EVENT } from '../../event-types/event-types';
import { derivedTrace } from '../event-trace';
import { WebhookAccess, type WebhookIdentity } from '../../webhooks/webhook-access';
import type { AttemptDto, DeliveryDetailDto, DeliveryDto, DeliveryPageDto } from './dto/delivery-log.dto';
import type { DeliveryLogQueryDto } from './dto/delivery-log-query.dto';

/** The attempts a delivery's detail shows (docs/api.md 10.7). */
export const ATTEMPT_LOG_SHOWN = 100;

/**
 * One delivery as the log shows it (docs/api.md 10.7): never the receiver's answer, never an
 * address; `behindHead`: it waits for the head of its webhook's order (10.18), due whenever that
 * has gone, so it shows no next attempt.
 */
function deliveryOf(row: DeliveryRow, behindHead = false): DeliveryDto {
  return {
    id: row.id,
    event: { id: row.eventId, type: row.eventType, createdAt: row.eventCreatedAt.toISOString() },
    state: row.state,
    attempts: row.attempts,
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.state === 'pending' && !behindHead ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    lastAttempt:
      row.lastAttemptAt === null
        ? null
        : { at: row.lastAttemptAt.toISOString(), durationMs: row.lastDurationMs ?? 0, status: row.lastStatus, error: row.lastError },
    // Never null (docs/api.md 10.17): an event accepted before traces were kept has one derived from its id.
    traceId: row.traceId ?? derivedTrace(row.eventId).traceId,
  };
}

const attemptOf = (row: AttemptRow): AttemptDto => ({
  at: row.at.toISOString(),
  durationMs: row.durationMs,
  status: row.status,
  error: row.error,
});

/** The log's filters as its cursors keep them: the times in ms. */
interface KeptFilters extends PageFilters {
  readonly state: DeliveryState | null;
  readonly type: string | null;
  readonly since: number | null;
  readonly until: number | null;
}

const keptOf = ({ state, type, since, until }: LogFilters): KeptFilters => ({
  state,
  type,
  since: since?.getTime() ?? null,
  until: until?.getTime() ?? null,
});

const filtersOf = ({ state, type, since, until }: KeptFilters): LogFilters => ({
  state,
  type,
  since: since === null ? null : new Date(since),
  until: until === null ? null : new Date(until),
});

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
    private readonly webhooks: WebhookAccess,
    private readonly cursors: PageCursors,
  ) {}

  async page(organizationId: number, name: string, query: DeliveryLogQueryDto): Promise<DeliveryPageDto> {
    // A cursor that is not one of ours is 400 before the webhook is looked for, as every bad query value is.
    const opened = query.cursor === undefined ? undefined : this.cursors.open<LogPosition, KeptFilters>(query.cursor);
    const webhook = await this.webhookOf(organizationId, name);
    const webhookId = webhook.id;
    const given = keptOf({ state: query.state ?? null, type: query.type ?? null, since: query.since ?? null, until: query.until ?? null });
    // A cursor keeps its page's filters: the next page is asked with it alone, or with the same filters.
    const scope = `deliveries:${webhookId}`;
    const cursor = opened === undefined ? undefined : this.cursors.within(opened, scope, given);
    const filters = filtersOf(cursor?.filters ?? given);
    const rows = await this.log.page(webhookId, filters, cursor?.position, query.limit + 1);
    const behindHead = await this.behindHeadOf(webhook);
    const data = rows.slice(0, query.limit).map((row) => deliveryOf(row, behindHead(row)));
    const last = rows[query.limit - 1];
    const next = rows.length > query.limit ? this.cursors.encode(scope, [last.createdAt.getTime(), last.id], keptOf(filters)) : null;
    return { data, next };
  }

  async detail(organizationId: number, name: string, id: number): Promise<DeliveryDetailDto> {
    const webhook = await this.webhookOf(organizationId, name);
    const row = await this.log.findOne(webhook.id, id);
    if (row === undefined) throw Errors.notFound();
    // The answer is bounded however long the log: the newest attempts, and how many there were in all.
    const attemptLog = (await this.log.attempts(id, ATTEMPT_LOG_SHOWN)).map(attemptOf);
    return { ...deliveryOf(row, (await this.behindHeadOf(webhook))(row)), attemptLog, attemptCount: row.attempts };
  }

  private async webhookOf(organizationId: number, name: string): Promise<WebhookIdentity> {
    const webhook = await this.webhooks.findIdentity(organizationId, name);
    if (webhook === undefined) throw Errors.notFound();
    return webhook;
  }

  /** Which pending deliveries wait behind the head of the webhook's order (docs/api.md 10.18): none unless it is ordered; its test pings never. */
  private async behindHeadOf(webhook: WebhookIdentity): Promise<(row: DeliveryRow) => boolean> {
    if (!webhook.ordered) return () => false;
    const head = await this.log.headOf(webhook.id);
    return (row) => row.state === 'pending' && row.id !== head && row.eventType !== TEST_EVENT;
  }
}
