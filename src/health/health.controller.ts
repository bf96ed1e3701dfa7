import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth.decorators';
import { Errors } from '../common/domain-error';
import { Database } from '../database/database';
import { ApiErrorResponses } from '../http/openapi-errors';

const PING_DEADLINE_MS = 1500;

/**
 * docs/api.md 9: 200 while the database answers a ping within 1.5 s, 503 `unavailable` when it
 * does not: what a load balancer needs, and nothing that costs more than a ping on every probe
 * (the queue's figures are metrics, read every 15 s). A plain ping through Database rather than
 * @nestjs/terminus: Terminus finds its peers at run time through import.meta, which in the
 * bundled build binds it to a second copy of @nestjs/typeorm.
 */
@ApiTags('operations')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly db: Database) {}

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
  async checkHealth(): Promise<{ status: 'ok'; database: 'up' }> {
    if (!(await this.db.ping(PING_DEADLINE_MS))) throw Errors.unavailable();
    return { status: 'ok', database: 'up' };
  }
}
