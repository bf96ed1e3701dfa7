import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/auth.decorators';
import { ApiErrorResponses } from '../http/openapi-errors';

const PING_TIMEOUT_MS = 1500;

/** SPEC 9: 200 while the database answers; 503 `unavailable` (through the error filter) when not. */
@ApiTags('operations')
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  @Get()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({ summary: 'Liveness and database reachability' })
  @ApiOkResponse({ schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } } } })
  @ApiErrorResponses({ 503: ['unavailable'] })
  check() {
    return this.health.check([() => this.database.pingCheck('database').withTimeout(PING_TIMEOUT_MS)]);
  }
}
