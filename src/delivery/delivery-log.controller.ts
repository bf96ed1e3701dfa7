import { Controller, Get, Param, Query, UseGuards } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller } from '../auth/auth.decorators';
import type { SessionCaller } from '../auth/auth-policy';
import { Errors } from '../common/domain-error';
import { ApiErrorResponses } from '../http/openapi-errors';
import { WebhookRateLimitGuard } from '../rate-limit/webhook-rate-limit.guard';
import { WebhookNamePipe } from '../webhooks/webhook-validation.pipes';
import { WEBHOOK_NAME_PATTERN } from '../webhooks/webhook.model';
import { DELIVERY_STATES } from './delivery.model';
import { DeliveryDetailDto, DeliveryPageDto } from './dto/delivery-log.dto';
import { DeliveryLogService, logQueryOf, MAX_LOG_LIMIT } from './delivery-log.service';

/** A delivery id in a path: a positive integer, else no such delivery. */
function deliveryIdOf(value: string): number {
  if (!/^[1-9]\d{0,15}$/.test(value)) throw Errors.notFound();
  return Number(value);
}

/** The delivery log of a webhook (docs/api.md 10.7), for the admin console: the callers of the webhook operations. */
@ApiTags('deliveries')
@Authenticated({ roles: ['owner', 'admin'] })
@UseGuards(WebhookRateLimitGuard)
@ApiParam({ name: 'name', schema: { type: 'string', pattern: WEBHOOK_NAME_PATTERN.source } })
@ApiErrorResponses({ 400: ['invalid name', 'bad request'], 404: ['not found'], 429: ['rate limited'] })
@Controller('webhook/:name/deliveries')
export class DeliveryLogController {
  constructor(private readonly log: DeliveryLogService) {}

  @Get()
  @ApiOperation({ summary: "The webhook's deliveries, newest first, a page at a time (next: an opaque cursor, or null)" })
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: MAX_LOG_LIMIT, default: 50 } })
  @ApiQuery({ name: 'cursor', required: false, schema: { type: 'string' } })
  @ApiQuery({ name: 'state', required: false, schema: { type: 'string', enum: [...DELIVERY_STATES] } })
  @ApiOkResponse({ type: DeliveryPageDto })
  list(@Caller() caller: SessionCaller, @Param('name', WebhookNamePipe) name: string, @Query() query: Record<string, unknown>) {
    return this.log.page(caller.organizationId, name, logQueryOf(query));
  }

  @Get(':id')
  @ApiOperation({ summary: 'One delivery with every attempt' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DeliveryDetailDto })
  detail(@Caller() caller: SessionCaller, @Param('name', WebhookNamePipe) name: string, @Param('id') id: string) {
    return this.log.detail(caller.organizationId, name, deliveryIdOf(id));
  }
}
