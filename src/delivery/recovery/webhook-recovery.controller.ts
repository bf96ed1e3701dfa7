import { actorOf } from '../../common/actor';
import { Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller } from '../../auth/auth.decorators';
import { ApiErrorResponses } from '../../http/openapi-errors';
import type { SessionCaller } from '../../identity/caller';
import { SessionRateLimitGuard } from '../../rate-limit/session-rate-limit.guard';
import { RequestInput } from '../../common/validation/request-input';
import { WEBHOOK_NAME_PATTERN } from '../../webhooks/webhook.model';
import { WebhookActionLimitGuard } from '../log/webhook-action-limit.guard';
import { DeliveryRecoveryService } from './delivery-recovery.service';
import { RecoverDeliveriesDto, RecoveredDeliveriesDto } from './dto/recovery.dto';
import { RecoverInput, RecoverRequestPipe } from './recover-request.pipe';

/**
 * Recovery (docs/api.md 10.14): the callers of the webhook operations, rate limited as they are,
 * and counted against the webhook's replay limit (a recovery is many replays). Its pipe answers
 * an invalid name before a bad body, and the Idempotency-Key after both.
 */
@ApiTags('deliveries')
@Authenticated({ roles: ['owner', 'admin'] })
@UseGuards(SessionRateLimitGuard)
@ApiParam({ name: 'name', schema: { type: 'string', pattern: WEBHOOK_NAME_PATTERN.source } })
@Controller('webhook/:name')
export class WebhookRecoveryController {
  constructor(private readonly recovery: DeliveryRecoveryService) {}

  @Post('recover')
  @HttpCode(202)
  @UseGuards(WebhookActionLimitGuard('retry'))
  @ApiOperation({
    summary:
      'Send again every failed delivery created in [since, until): answered at once with their number, sent from then on through the queue',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      '1-255 visible ASCII characters; the same key for the webhook within 24 h answers as the first call and recovers nothing more',
  })
  @ApiBody({ type: RecoverDeliveriesDto })
  @ApiAcceptedResponse({ type: RecoveredDeliveriesDto })
  @ApiErrorResponses({
    400: ['invalid name', 'bad request'],
    403: ['forbidden origin', 'no organization', 'no permission'],
    404: ['not found'],
    409: ['disabled', 'idempotency conflict'],
    413: ['payload too large'],
    415: ['unsupported media type'],
    429: ['rate limited', 'queue full'],
  })
  recoverDeliveries(@Caller() caller: SessionCaller, @RequestInput(RecoverRequestPipe) { name, request, idempotencyKey }: RecoverInput) {
    return this.recovery.recover(caller.organizationId, actorOf(caller), name, request, idempotencyKey);
  }
}
