import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller } from '../auth/auth.decorators';
import type { SessionCaller } from '../identity/caller';
import { PAGE_LIMIT_SCHEMA, PageQuery } from '../common/page-query';
import { ApiErrorResponses } from '../http/openapi-errors';
import { SessionRateLimitGuard } from '../rate-limit/session-rate-limit.guard';
import { AuditService } from './audit.service';
import { AuditPageDto } from './dto/audit.dto';

/** `GET {p}/audit` (docs/api.md 10.9): who changed the organization's webhooks, for owners and admins. */
@ApiTags('audit')
@Authenticated({ roles: ['owner', 'admin'] })
@UseGuards(SessionRateLimitGuard)
@ApiErrorResponses({ 400: ['bad request'], 429: ['rate limited'] })
@Controller('audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @ApiOperation({ summary: "The organization's audit trail, newest first, a page at a time" })
  @ApiQuery({ name: 'limit', required: false, schema: PAGE_LIMIT_SCHEMA })
  @ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' } })
  @ApiOkResponse({ type: AuditPageDto })
  list(@Caller() caller: SessionCaller, @Query() query: Record<string, unknown>) {
    const page = new PageQuery(query);
    page.done();
    return this.audit.page(caller.organizationId, page);
  }
}
