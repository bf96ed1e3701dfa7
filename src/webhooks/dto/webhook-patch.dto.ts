import type { EventSubscription } from '../../event-types/event-types';
import { AuthField, MtlsAuthDto, OAuth2AuthDto } from './webhook-auth.dto';
import { EventsField, GroupField, HeadersField, OrderedField, RateLimitField, UrlField } from './webhook-field.decorators';

export class TransactionEventsPatchDto {
  @UrlField({ nullable: true }) created?: string | null;
  @UrlField({ nullable: true }) updated?: string | null;
  @UrlField({ nullable: true }) completed?: string | null;
}

export class CardEventsPatchDto {
  @UrlField({ nullable: true }) updated?: string | null;
}

export class UserEventsPatchDto {
  @UrlField({ nullable: true }) updated?: string | null;
}

/**
 * `PATCH /webhook/{name}`, a JSON Merge Patch: members present change, null clears an event
 * URL, a whole group, the rate limit, the event types, the headers (and a header member null
 * removes that header) or the auth (replaced as a whole when given); `url` cannot be null and
 * `name` is not a member.
 */
export class WebhookPatchDto {
  @UrlField() url?: string;
  @GroupField(() => TransactionEventsPatchDto, { nullable: true }) transaction?: TransactionEventsPatchDto | null;
  @GroupField(() => CardEventsPatchDto, { nullable: true }) card?: CardEventsPatchDto | null;
  @GroupField(() => UserEventsPatchDto, { nullable: true }) user?: UserEventsPatchDto | null;
  @RateLimitField({ nullable: true }) rateLimit?: number | null;
  @EventsField({ nullable: true }) events?: EventSubscription[] | null;
  @HeadersField({ nullable: true }) headers?: Record<string, string | null> | null;
  @OrderedField({ nullable: true }) ordered?: boolean | null;
  @AuthField({ nullable: true }) auth?: OAuth2AuthDto | MtlsAuthDto | null;
}
