import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../auth/auth.decorators';
import { Errors } from '../common/domain-error';
import { DeliveryQueue } from '../delivery/dispatch/delivery-queue';
import { ApiErrorResponses } from '../http/openapi-errors';

const PING_TIMEOUT_MS = 1500;

/**
 * docs/api.md 9: 200 while the database answers (with the delivery queue's depth when it can
 * be read), 503 `unavailable` when it does not (or not within
 * the timeout). A plain ping rather than @nestjs/terminus: Terminus finds its peers at run time
 * through import.meta, which in the bundled build binds it to a second copy of @nestjs/typeorm.
 */
@ApiTags('operations')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly queue: DeliveryQueue,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Liveness and database reachability' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['status', 'database'],
      properties: {
        status: { type: 'string', enum: ['ok'] },
        database: { type: 'string', enum: ['up'] },
        deliveries: {
          type: 'object',
          description: 'The delivery queue: pending deliveries, and how long the oldest due one has waited (0: none due)',
          properties: { pending: { type: 'integer' }, oldestDueSeconds: { type: 'number' } },
        },
      },
    },
  })
  @ApiErrorResponses({ 503: ['unavailable'] })
  async check(): Promise<{ status: 'ok'; database: 'up'; deliveries?: { pending: number; oldestDueSeconds: number } }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Errors.unavailable()), PING_TIMEOUT_MS);
    });
    try {
      if (!this.dataSource.isInitialized) throw Errors.unavailable();
      await Promise.race([this.dataSource.query('SELECT 1'), timeout]);
    } catch {
      throw Errors.unavailable();
    }
    try {
      return { status: 'ok', database: 'up', deliveries: await Promise.race([this.queueDepth(), timeout]) };
    } catch {
      // The database answers, but not about the queue (a schema not migrated yet): still up.
      return { status: 'ok', database: 'up' };
    } finally {
      clearTimeout(timer);
    }
  }

  private async queueDepth(): Promise<{ pending: number; oldestDueSeconds: number }> {
    const now = new Date();
    const { pending, oldestDueAt } = await this.queue.stats(now);
    return { pending, oldestDueSeconds: oldestDueAt === null ? 0 : Math.max(0, (now.getTime() - oldestDueAt.getTime()) / 1000) };
  }
}
