import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsString, Matches, Max, Min, ValidateBy, ValidateIf, ValidateNested } from 'class-validator';
import { MAX_URL_LENGTH } from '../../url-safety/url-rules';
import { MAX_RATE_LIMIT, MIN_RATE_LIMIT, WEBHOOK_NAME_PATTERN } from '../webhook.model';

const NAME_RULE = `must match ${WEBHOOK_NAME_PATTERN.source}`;
const given = (_: object, value: unknown) => value !== undefined;
const givenNotNull = (_: object, value: unknown) => value !== undefined && value !== null;

/** A required member must be present; a present null is then a type error ("must be a string"). */
const Present = () =>
  ValidateBy({ name: 'isPresent', validator: { validate: (value) => value !== undefined, defaultMessage: () => 'is required' } });

const nameDoc = { type: String, pattern: WEBHOOK_NAME_PATTERN.source, example: 'payments-prod' };
const urlDoc = { type: String, format: 'uri', maxLength: MAX_URL_LENGTH, example: 'https://hooks.example.com/platform' };

/** A webhook name in a body; `required` makes a missing one an error. */
export const WebhookNameField = ({ required }: { required: boolean }) =>
  applyDecorators(
    required ? ApiProperty(nameDoc) : ApiPropertyOptional(nameDoc),
    required ? Present() : ValidateIf(given),
    IsString({ message: NAME_RULE }),
    Matches(WEBHOOK_NAME_PATTERN, { message: NAME_RULE }),
  );

/** A URL string: its URL rules are checked after the shape, by the pipe. */
export const UrlField = ({ required = false, nullable = false } = {}) =>
  applyDecorators(
    required ? ApiProperty(urlDoc) : ApiPropertyOptional({ ...urlDoc, nullable }),
    required ? Present() : ValidateIf(nullable ? givenNotNull : given),
    IsString({ message: 'must be a string' }),
  );

/** An event group: an object of URL fields (or null in a patch, which clears the group). */
export const GroupField = (type: () => new () => object, { nullable = false } = {}) =>
  applyDecorators(
    // Written as a `type` property: Swagger recognizes lazy types by that function name.
    ApiPropertyOptional({ type: () => type(), nullable }),
    ValidateIf(nullable ? givenNotNull : given),
    IsObject({ message: 'must be an object' }),
    ValidateNested(),
    Type(type),
  );

const RATE_LIMIT_RULE = `must be a whole number of deliveries per second from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}`;

/** `rateLimit` (docs/api.md 10.10): optional; in a patch, null clears it. */
export const RateLimitField = ({ nullable = false } = {}) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'integer',
      minimum: MIN_RATE_LIMIT,
      maximum: MAX_RATE_LIMIT,
      nullable,
      description:
        'At most this many deliveries a second reach the webhook, from every instance together' +
        (nullable ? '; null removes the limit' : ''),
    }),
    ValidateIf(nullable ? givenNotNull : given),
    IsInt({ message: RATE_LIMIT_RULE }),
    Min(MIN_RATE_LIMIT, { message: RATE_LIMIT_RULE }),
    Max(MAX_RATE_LIMIT, { message: RATE_LIMIT_RULE }),
  );
