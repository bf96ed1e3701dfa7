import { ApiProperty, ApiPropertyOptional, getSchemaPath } from '@nestjs/swagger';
import type { EventSubscription } from '../../event-types/event-types';
import { MASKED_VALUE } from '../custom-headers';
import { MAX_RATE_LIMIT, MIN_RATE_LIMIT, WEBHOOK_NAME_PATTERN } from '../webhook.model';
import { EVENT_SUBSCRIPTION_DOC } from './webhook-field.decorators';
import { MtlsAuthViewDto, OAuth2AuthViewDto } from './webhook-auth.dto';
import { CardEventsDto, TransactionEventsDto, UserEventsDto } from './webhook-body.dto';

/**
 * A webhook as read back: `url`, only the groups and events that are set, `events` and `headers`
 * (masked) when set, `rateLimit` when set, `ordered` and `disabled` when they are, `auth` (its
 * secret or key never) when set.
 */
export class WebhookDto {
  @ApiProperty({ format: 'uri' }) url: string;
  @ApiPropertyOptional({ type: () => TransactionEventsDto }) transaction?: TransactionEventsDto;
  @ApiPropertyOptional({ type: () => CardEventsDto }) card?: CardEventsDto;
  @ApiPropertyOptional({ type: () => UserEventsDto }) user?: UserEventsDto;
  @ApiPropertyOptional({
    ...EVENT_SUBSCRIPTION_DOC,
    description: 'The event types the webhook takes, as sent, when it does not take every type',
  })
  events?: EventSubscription[];
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string', enum: [MASKED_VALUE] },
    description: 'Its custom headers by name, as sent; a value is never shown again',
  })
  headers?: Record<string, string>;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: MIN_RATE_LIMIT,
    maximum: MAX_RATE_LIMIT,
    description: 'Deliveries per second, when limited',
  })
  rateLimit?: number;
  @ApiPropertyOptional({ enum: [true], description: 'Present when its deliveries go one at a time, in order' })
  ordered?: true;
  @ApiPropertyOptional({
    oneOf: [{ $ref: getSchemaPath(OAuth2AuthViewDto) }, { $ref: getSchemaPath(MtlsAuthViewDto) }],
    description: 'How the service authenticates to the receiver, when it does: never its client secret or private key',
  })
  auth?: OAuth2AuthViewDto | MtlsAuthViewDto;
  @ApiPropertyOptional({
    enum: [true],
    description: 'Present when the service disabled the webhook for failing for days; POST …/enable turns it on',
  })
  disabled?: true;
}

export class NamedWebhookDto extends WebhookDto {
  @ApiProperty({ pattern: WEBHOOK_NAME_PATTERN.source }) name: string;
}

const secretDoc = {
  description: 'Signing secret, `whsec_` and the base64 of 32 random bytes. Shown only here.',
  pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
};

export class CreatedWebhookDto extends NamedWebhookDto {
  @ApiProperty(secretDoc) secret: string;
}

export class ReplacedWebhookDto extends WebhookDto {
  @ApiProperty(secretDoc) secret: string;
}

export class DeleteResultDto {
  @ApiProperty({ enum: ['ok'] }) code: 'ok';
}

export class RotatedSecretDto {
  @ApiProperty({ pattern: '^whsec_[A-Za-z0-9+/]{43}=$', description: 'The new signing secret, shown this once' })
  secret: string;

  @ApiProperty({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'Until when the previous secret signs too; null: it was dropped',
  })
  previousExpiresAt: string | null;
}
