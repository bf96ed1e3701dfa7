import { Body, Controller, Headers, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiHeader, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Authenticated, Caller } from '../../auth/auth.decorators';
import { ApiErrorResponses } from '../../http/openapi-errors';
import type { SessionCaller } from '../../identity/caller';
import { SessionRateLimitGuard } from '../../rate-limit/session-rate-limit.guard';
import { WebhookNamePipe } from '../../webhooks/webhook-validation.pipes';
import { WEBHOOK_NAME_PATTERN } from '../../webhooks/webhook.model';
import { idempotencyKeyOf } from '../events/incoming-event';
import { WebhookActionLimitGuard } from '../log/webhook-action-limit.guard';
import { DeliveryRecoveryService } from './delivery-recovery.service';
import { RecoverDeliveriesDto, RecoveredDeliveriesDto } from './dto/recovery.dto';
import { RecoverBodyPipe } from './recover-body.pipe';
import type { RecoveryRequest } from './recovery-window';

/**
 * Recovery (docs/api.md 10.14): the callers of the webhook operations, rate limited as they are,
 * and counted against the webhook's replay limit (a recovery is many replays). The name is the
 * handler's last parameter, so that an invalid name is answered before a bad body, and the
 * Idempotency-Key after both.
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
    429: ['rate limited'],
  })
  recoverDeliveries(
    @Caller() caller: SessionCaller,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Body(RecoverBodyPipe) request: RecoveryRequest,
    @Param('name', WebhookNamePipe) name: string,
  ) {
    return this.recovery.recover(caller.organizationId, name, request, idempotencyKeyOf(idempotencyKey));
  }
}
