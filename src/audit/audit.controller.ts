import { Controller, Get, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller } from '../auth/auth.decorators';
import type { SessionCaller } from '../identity/caller';
import { PageQueryDto } from '../common/page-query.dto';
import { QueryPipe } from '../common/validation/query.pipe';
import { ApiQueryOf } from '../common/validation/query-parameter';
import { RequestInput } from '../common/validation/request-input';
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
  @ApiQueryOf(PageQueryDto)
  @ApiOkResponse({ type: AuditPageDto })
  listAuditEntries(@Caller() caller: SessionCaller, @RequestInput(new QueryPipe(PageQueryDto)) page: PageQueryDto) {
    return this.audit.page(caller.organizationId, page);
  }
}
