import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Optional } from '../../common/validation/validation.decorators';
import { DEFAULT_GRACE_SECONDS, MAX_GRACE_SECONDS } from '../webhook.model';
import type { EventSubscription } from '../../event-types/event-types';
import {
  EventsField,
  GroupField,
  HeadersField,
  OrderedField,
  RateLimitField,
  UrlField,
  WebhookNameField,
} from './webhook-field.decorators';
import { AuthField, MtlsAuthDto, OAuth2AuthDto } from './webhook-auth.dto';

export class TransactionEventsDto {
  @UrlField() created?: string;
  @UrlField() updated?: string;
  @UrlField() completed?: string;
}

export class CardEventsDto {
  @UrlField() updated?: string;
}

export class UserEventsDto {
  @UrlField() updated?: string;
}

/** A webhook as create and the legacy create-or-update take it: its URLs, rate limit, event types, headers, order and auth, no nulls. */
export class WebhookUrlsDto {
  @UrlField({ required: true }) url: string;
  @GroupField(() => TransactionEventsDto) transaction?: TransactionEventsDto;
  @GroupField(() => CardEventsDto) card?: CardEventsDto;
  @GroupField(() => UserEventsDto) user?: UserEventsDto;
  @RateLimitField() rateLimit?: number;
  @EventsField() events?: EventSubscription[];
  @HeadersField() headers?: Record<string, string>;
  @OrderedField() ordered?: boolean;
  @AuthField() auth?: OAuth2AuthDto | MtlsAuthDto;
}

/** `POST /webhook/{name}`: a body name is still accepted (legacy clients), and loses to the path. */
export class CreateWebhookDto extends WebhookUrlsDto {
  @WebhookNameField({ required: false }) name?: string;
}

/** `POST /webhook` (legacy create-or-update): the name comes only from the body. */
export class ReplaceWebhookDto extends WebhookUrlsDto {
  @WebhookNameField({ required: true }) name: string;
}

/** `DELETE /webhook` (legacy). */
export class DeleteWebhookDto {
  @WebhookNameField({ required: true }) name: string;
}

/** `POST /webhook/{name}/secret/rotate` (docs/api.md 10.7): `{}` or `{"graceSeconds"}`; null is refused, not the default. */
export class RotateSecretDto {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, maximum: MAX_GRACE_SECONDS, default: DEFAULT_GRACE_SECONDS })
  @Optional()
  @Min(0, { message: `must be from 0 to ${MAX_GRACE_SECONDS}` })
  @Max(MAX_GRACE_SECONDS, { message: `must be from 0 to ${MAX_GRACE_SECONDS}` })
  // Listed last, checked first (class-validator runs them bottom up): a non-number says so.
  @IsInt({ message: 'must be a whole number of seconds' })
  graceSeconds?: number;
}
