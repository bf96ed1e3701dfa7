import { actorOf } from '../../common/actor';
import { Controller, Get, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller } from '../../auth/auth.decorators';
import type { SessionCaller } from '../../identity/caller';
import { ApiErrorResponses } from '../../http/openapi-errors';
import { SessionRateLimitGuard } from '../../rate-limit/session-rate-limit.guard';
import { WebhookNamePipe } from '../../webhooks/webhook-validation.pipes';
import { WEBHOOK_NAME_PATTERN } from '../../webhooks/webhook.model';
import { DeliveryLogQueryPipe, DeliveryPipe } from './delivery-log.pipes';
import { ApiQueryOf } from '../../common/validation/query-parameter';
import { RequestInput } from '../../common/validation/request-input';
import { DeliveryLogService } from './delivery-log.service';
import { DeliveryReplayService } from './delivery-replay.service';
import { WebhookTestService } from './webhook-test.service';
import { WebhookDisablingService } from '../dispatch/webhook-disabling.service';
import { WebhookDto } from '../../webhooks/dto/webhook-responses.dto';
import { DeliveryDetailDto, DeliveryPageDto, RetriedDeliveryDto, TestDeliveryDto } from './dto/delivery-log.dto';
import { DeliveryLogQueryDto } from './dto/delivery-log-query.dto';
import { WebhookActionLimitGuard } from './webhook-action-limit.guard';

const IdParam = () => ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } });

/**
 * A webhook's deliveries for the admin console (docs/api.md 10.7, 10.10): the log, a replay, a
 * test event, enabling a disabled webhook. The callers of the webhook operations, rate limited
 * as they are; replays and tests also per webhook. Each route's one pipe (delivery-log.pipes.ts)
 * answers an invalid name (400 `invalid name`) before a bad id (404) or query (400 `bad request`).
 */
@ApiTags('deliveries')
@Authenticated({ roles: ['owner', 'admin'] })
@UseGuards(SessionRateLimitGuard)
@ApiParam({ name: 'name', schema: { type: 'string', pattern: WEBHOOK_NAME_PATTERN.source } })
@ApiErrorResponses({ 400: ['invalid name', 'bad request'], 404: ['not found'], 429: ['rate limited'] })
@Controller('webhook/:name')
export class WebhookDeliveriesController {
  constructor(
    private readonly log: DeliveryLogService,
    private readonly replays: DeliveryReplayService,
    private readonly tests: WebhookTestService,
    private readonly disabling: WebhookDisablingService,
  ) {}

  @Get('deliveries')
  @ApiOperation({ summary: "The webhook's deliveries, newest first, a page at a time (next: an opaque cursor, or null)" })
  @ApiQueryOf(DeliveryLogQueryDto)
  @ApiOkResponse({ type: DeliveryPageDto })
  listDeliveries(
    @Caller() caller: SessionCaller,
    @RequestInput(DeliveryLogQueryPipe) { name, query }: { name: string; query: DeliveryLogQueryDto },
  ) {
    return this.log.page(caller.organizationId, name, query);
  }

  @Get('deliveries/:id')
  @ApiOperation({ summary: 'One delivery with every attempt' })
  @IdParam()
  @ApiOkResponse({ type: DeliveryDetailDto })
  getDelivery(@Caller() caller: SessionCaller, @RequestInput(DeliveryPipe) { name, id }: { name: string; id: number }) {
    return this.log.detail(caller.organizationId, name, id);
  }

  @Post('deliveries/:id/retry')
  @HttpCode(202)
  @UseGuards(WebhookActionLimitGuard('retry'))
  @ApiOperation({ summary: 'Send a delivery again now (same webhook-id); the retry schedule starts again' })
  @IdParam()
  @ApiAcceptedResponse({ type: RetriedDeliveryDto })
  @ApiErrorResponses({ 403: ['forbidden origin', 'no organization', 'no permission'], 409: ['cancelled', 'disabled'] })
  retryDelivery(@Caller() caller: SessionCaller, @RequestInput(DeliveryPipe) { name, id }: { name: string; id: number }) {
    return this.replays.replay(caller.organizationId, actorOf(caller), name, id);
  }

  @Post('test')
  @HttpCode(202)
  @UseGuards(WebhookActionLimitGuard('test'))
  @ApiOperation({ summary: 'Send a webhook.test event to the webhook url, through the same queue and log' })
  @ApiAcceptedResponse({ type: TestDeliveryDto })
  @ApiErrorResponses({ 403: ['forbidden origin', 'no organization', 'no permission'], 409: ['disabled'] })
  testWebhook(@Caller() caller: SessionCaller, @RequestInput(WebhookNamePipe) name: string) {
    return this.tests.send(caller.organizationId, actorOf(caller), name);
  }

  @Post('enable')
  @HttpCode(200)
  @ApiOperation({ summary: 'Enable a webhook the service disabled for failing for days; its record starts afresh' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiErrorResponses({ 403: ['forbidden origin', 'no organization', 'no permission'] })
  enableWebhook(@Caller() caller: SessionCaller, @RequestInput(WebhookNamePipe) name: string) {
    return this.disabling.enable(caller.organizationId, actorOf(caller), name);
  }
}
