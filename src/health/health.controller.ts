import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../auth/auth.decorators';
import { Errors } from '../common/domain-error';
import { ApiErrorResponses } from '../http/openapi-errors';

const PING_TIMEOUT_MS = 1500;

/**
 * docs/api.md 9: 200 while the database answers, 503 `unavailable` when it does not (or not
 * within the timeout): what a load balancer needs, and nothing that costs more than a ping on
 * every probe (the queue's figures are metrics, read every 15 s). A plain ping rather than
 * @nestjs/terminus: Terminus finds its peers at run time through import.meta, which in the
 * bundled build binds it to a second copy of @nestjs/typeorm.
 */
@ApiTags('operations')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly dataSource: DataSource) {}

  @Get()
  @ApiOperation({ summary: 'Liveness and database reachability' })
  @ApiOkResponse({
    schema: {
      type: 'object',
      required: ['status', 'database'],
      properties: { status: { type: 'string', enum: ['ok'] }, database: { type: 'string', enum: ['up'] } },
    },
  })
  @ApiErrorResponses({ 503: ['unavailable'] })
  async check(): Promise<{ status: 'ok'; database: 'up' }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(Errors.unavailable()), PING_TIMEOUT_MS);
    });
    try {
      if (!this.dataSource.isInitialized) throw Errors.unavailable();
      await Promise.race([this.dataSource.query('SELECT 1'), timeout]);
      return { status: 'ok', database: 'up' };
    } catch {
      throw Errors.unavailable();
    } finally {
      clearTimeout(timer);
    }
  }
}
