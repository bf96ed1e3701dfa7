import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsString, Matches, Max, Min, ValidateBy } from 'class-validator';
import { Errors } from '../../common/domain-error';
import { answeredWith, KeptAsSent, NestedObject, Optional, Required } from '../../common/validation/validation.decorators';
import { SUBSCRIBABLE_EVENTS } from '../../event-types/event-types';
import { MAX_URL_LENGTH } from '../../url-safety/url-rules';
import { headerProblems, MAX_HEADER_BYTES, MAX_HEADER_VALUE, MAX_HEADERS } from '../custom-headers';
import { MAX_RATE_LIMIT, MIN_RATE_LIMIT, WEBHOOK_NAME_PATTERN } from '../webhook.model';

/*
 * A webhook's fields as its bodies take them (docs/api.md 5, 10.10, 10.13, 10.15): each its
 * OpenAPI description and its rules, from common/validation's building blocks.
 */

const NAME_RULE = `must match ${WEBHOOK_NAME_PATTERN.source}`;
/** Every problem of a name answers 400 `invalid name` (docs/api.md 5, "Which 400 code"), before any other of its body. */
const INVALID_NAME = answeredWith(Errors.invalidName, NAME_RULE);

const nameDoc = { type: String, pattern: WEBHOOK_NAME_PATTERN.source, example: 'payments-prod' };
const urlDoc = { type: String, format: 'uri', maxLength: MAX_URL_LENGTH, example: 'https://hooks.example.com/platform' };

/** A webhook name, in a path or a body; `required` makes a missing one an error (`name: is required`). */
export const WebhookNameField = ({ required }: { required: boolean }) =>
  applyDecorators(
    required ? ApiProperty(nameDoc) : ApiPropertyOptional(nameDoc),
    required ? Required(answeredWith(Errors.invalidName)) : Optional(),
    IsString(INVALID_NAME),
    Matches(WEBHOOK_NAME_PATTERN, INVALID_NAME),
  );

/** A URL string: its URL rules are checked after the shape, by the route's pipe. */
export const UrlField = ({ required = false, nullable = false } = {}) =>
  applyDecorators(
    required ? ApiProperty(urlDoc) : ApiPropertyOptional({ ...urlDoc, nullable }),
    required ? Required() : Optional({ nullable }),
    IsString({ message: 'must be a string' }),
  );

/** An event group: an object of URL fields (or null in a patch, which clears the group). */
export const GroupField = (type: () => new () => object, { nullable = false } = {}) =>
  applyDecorators(
    // Written as a `type` property: Swagger recognizes lazy types by that function name.
    ApiPropertyOptional({ type: () => type(), nullable }),
    Optional({ nullable }),
    NestedObject(type),
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
    Optional({ nullable }),
    IsInt({ message: RATE_LIMIT_RULE }),
    Min(MIN_RATE_LIMIT, { message: RATE_LIMIT_RULE }),
    Max(MAX_RATE_LIMIT, { message: RATE_LIMIT_RULE }),
  );

/** `ordered` (docs/api.md 10.18): true or false; in a patch, null is false. */
export const OrderedField = ({ nullable = false } = {}) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'boolean',
      nullable,
      description:
        'Its deliveries go one at a time, in the order their events were accepted, on every instance; a failing one holds the rest' +
        (nullable ? '; null is false' : ''),
    }),
    Optional({ nullable }),
    IsBoolean({ message: 'must be true or false' }),
  );

/** What is wrong with an `events` list (docs/api.md 10.13), or undefined: an item is named by position unless it is a known type. */
function eventsProblem(value: unknown): string | undefined {
  if (!Array.isArray(value)) return 'must be an array of event types';
  if (value.length === 0) return 'must list at least one event type';
  const known = SUBSCRIBABLE_EVENTS as readonly unknown[];
  const unknown = value.findIndex((item) => !known.includes(item));
  if (unknown >= 0) return `item ${unknown + 1} is not one of ${SUBSCRIBABLE_EVENTS.join(', ')}`;
  const repeated = value.find((item, i) => value.indexOf(item) !== i) as string | undefined;
  return repeated === undefined ? undefined : `${repeated} is listed twice`;
}

/** The OpenAPI enum of what `events` may list (docs/api.md 10.13), one schema for the bodies and the answers. */
export const EVENT_SUBSCRIPTION_DOC = {
  enum: SUBSCRIBABLE_EVENTS,
  enumName: 'EventSubscription',
  enumSchema: { description: 'An event type, or a group wildcard that takes every type of its group' },
  isArray: true,
} as const;

/** `events` (docs/api.md 10.13): the event types a webhook takes, each a type or a group wildcard; in a patch, null clears it. */
export const EventsField = ({ nullable = false } = {}) =>
  applyDecorators(
    ApiPropertyOptional({
      ...EVENT_SUBSCRIPTION_DOC,
      minItems: 1,
      uniqueItems: true,
      nullable,
      description:
        'The event types the webhook takes: types, or a group wildcard (transaction.*, card.*, user.*); absent, every type' +
        (nullable ? '; null takes every type again' : ''),
    }),
    Optional({ nullable }),
    ValidateBy({
      name: 'isEventSubscriptions',
      validator: { validate: (value) => eventsProblem(value) === undefined, defaultMessage: (args) => eventsProblem(args?.value) ?? '' },
    }),
  );

const HEADER_NAME_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$";
const HEADER_VALUE_PATTERN = '^[!-~]([ -~]*[!-~])?$';

/**
 * `headers` (docs/api.md 10.15): custom headers sent with every attempt; in a patch a JSON Merge
 * Patch (a null member removes one, null removes them all). Its problems never quote a value.
 */
export const HeadersField = ({ nullable = false } = {}) =>
  applyDecorators(
    ApiPropertyOptional({
      type: 'object',
      // A patch may name more members than it leaves (null ones remove): its limit is on the result.
      ...(nullable ? {} : { maxProperties: MAX_HEADERS }),
      propertyNames: { pattern: HEADER_NAME_PATTERN },
      additionalProperties: {
        type: nullable ? ['string', 'null'] : 'string',
        minLength: 1,
        maxLength: MAX_HEADER_VALUE,
        pattern: HEADER_VALUE_PATTERN,
      },
      nullable,
      description:
        'Headers sent with every attempt beside the signed ones (a receiver API key, for example): stored encrypted, never shown again ' +
        '(reads mask every value). Not covered by the signature. Refused names: host, content-length, content-type, ' +
        'transfer-encoding, connection, keep-alive, te, trailer, upgrade, expect, user-agent, cookie, forwarded, x-real-ip, ' +
        'x-http-method-override, x-method-override, x-http-method, x-original-url, x-rewrite-url, traceparent, tracestate, baggage, x-forwarded-*, proxy-*, webhook-*; ' +
        `at most ${MAX_HEADERS} headers and ${MAX_HEADER_BYTES} characters of values together` +
        (nullable
          ? ' in the set the patch leaves. Merged: a null member removes that header (names match case-insensitively), null removes them all'
          : ''),
    } as ApiPropertyOptions),
    Optional({ nullable }),
    // Any HTTP token is a name, `constructor` and `toString` included, which a copy would drop.
    KeptAsSent(),
    ValidateBy({
      name: 'isCustomHeaders',
      validator: {
        validate: (value) => headerProblems(value, { nullable }).length === 0,
        defaultMessage: (args) => headerProblems(args?.value, { nullable }).join('; '),
      },
    }),
  );
