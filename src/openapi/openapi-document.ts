import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { ParameterObject, PathItemObject, ReferenceObject, ResponsesObject, SchemaObject, WebhooksObject } from '@nestjs/swagger';
import { version } from '../../package.json';
import { PLATFORM_SCHEME, SESSION_COOKIE, SESSION_SCHEME, WALLET_SCHEME } from '../auth/auth-policy';
import { EVENT_ID_PATTERN } from '../delivery/delivery.model';
import { CATALOGUED_EVENT_TYPES, EVENT_CATALOGUE, eventBodySchema, exampleEventBody } from './event-catalogue';
import { DISABLED_EVENT, EVENT_FIELDS, SentEventType, TEST_EVENT, wildcardOf } from '../event-types/event-types';

/**
 * The OpenAPI document of docs/api.md 9: OpenAPI 3.1, the operations as Nest's scanner finds
 * them, and the event catalogue as `webhooks` (10.11). In 3.1, @nestjs/swagger writes what 3.0
 * called `nullable` as JSON Schema does (`type: [..., 'null']`, or `anyOf` with `{type: 'null'}`
 * beside a `$ref`); test/operations/operations.e2e-spec.ts holds every schema of the document to draft
 * 2020-12 without 3.0's keywords.
 */
export function openApiDocument(app: INestApplication): OpenAPIObject {
  const description = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('platform-api')
    .setDescription(
      'Webhook management and card push-provisioning. Every error is `{code, message?}`. ' +
        'The webhooks are the event catalogue: every request the service sends to a webhook, by event type.',
    )
    .setVersion('1')
    .addCookieAuth(SESSION_COOKIE, { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE }, SESSION_SCHEME)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'A wallet_extension access token (card provisioning only)' },
      WALLET_SCHEME,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', bearerFormat: 'opaque', description: 'A platform key (POST /api/events only)' },
      PLATFORM_SCHEME,
    )
    .build();
  // A handler's name is its operation's id (`listWebhooks`, `getDelivery`): what generated clients
  // call their methods, so it is unique across the app (openapi-document.spec.ts) and kept stable.
  const document = SwaggerModule.createDocument(
    app,
    { ...description, webhooks: catalogueWebhooks() },
    { operationIdFactory: (_, method) => method },
  );
  closeRequestBodies(document);
  return document;
}

/**
 * Every body refuses unknown members, at any depth (docs/api.md 5; validateBody's whitelist): each
 * object schema a request body reaches that lists its properties gets `additionalProperties:
 * false`, which @nestjs/swagger cannot say of a class. Free-form objects (an event's `data`, a
 * webhook's `headers`) list none and stay open.
 */
function closeRequestBodies(document: OpenAPIObject): void {
  const components = (document.components?.schemas ?? {}) as Record<string, SchemaObject | ReferenceObject>;
  const seen = new Set<SchemaObject>();
  const close = (schema: SchemaObject | ReferenceObject | undefined): void => {
    if (schema === undefined) return;
    const target = '$ref' in schema ? components[schema.$ref.replace('#/components/schemas/', '')] : schema;
    if (target === undefined || '$ref' in target || seen.has(target)) return;
    seen.add(target);
    if (target.properties !== undefined && target.additionalProperties === undefined) target.additionalProperties = false;
    for (const member of Object.values(target.properties ?? {})) close(member);
    for (const part of [...(target.allOf ?? []), ...(target.anyOf ?? []), ...(target.oneOf ?? [])]) close(part);
    if (target.items !== undefined) close(target.items);
  };
  for (const item of Object.values(document.paths)) {
    for (const operation of [item.post, item.put, item.patch, item.delete]) {
      const body = operation?.requestBody;
      if (body === undefined || '$ref' in body) continue;
      for (const media of Object.values(body.content)) close(media.schema);
    }
  }
}

/** docs/api.md 10.3: the headers of every attempt. */
const HEADERS: ParameterObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The event id, the same on every attempt of the event: deduplicate on it (deliveries are at least once, in no promised order)',
    schema: { type: 'string', pattern: EVENT_ID_PATTERN.source },
    example: 'evt_3q2HYOmIS0Cu2rM5bW7nVg',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt, signed: refuse a request too far from your clock (the verifiers allow 5 minutes)',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1768469400',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the webhook secret ' +
      '(the base64 after `whsec_`). During a secret rotation, two signatures separated by a space, the new secret first. ' +
      'The `standardwebhooks` and `svix` libraries verify it.',
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)?$' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
  {
    name: 'content-type',
    in: 'header',
    required: true,
    description: 'Always `application/json`',
    schema: { type: 'string', const: 'application/json' } as SchemaObject,
    example: 'application/json',
  },
  {
    name: 'user-agent',
    in: 'header',
    required: true,
    description: "`platform-api/` and the service's version",
    schema: { type: 'string', pattern: '^platform-api/[0-9]+\\.[0-9]+\\.[0-9]+$' },
    example: `platform-api/${version}`,
  },
];

const RETRY_AFTER = {
  description: 'Seconds to wait at least before the next attempt (at most 24 h are taken)',
  schema: { type: 'integer', minimum: 0 },
};

/** docs/api.md 10.5: what the receiver's answer does to the delivery. */
const ANSWERS: ResponsesObject = {
  '2XX': {
    description:
      'Received: the delivery has succeeded (any 2xx within DELIVERY_TIMEOUT_MS). The answer body is read at most 1 KiB and dropped.',
  },
  '410': { description: 'Gone: no further attempt; the delivery has failed.' },
  '429': {
    description: 'Retried: after the next delay of the schedule, or after Retry-After when that is longer.',
    headers: { 'Retry-After': RETRY_AFTER },
  },
  '503': {
    description: 'Retried: after the next delay of the schedule, or after Retry-After when that is longer.',
    headers: { 'Retry-After': RETRY_AFTER },
  },
  default: {
    description:
      'Anything else fails the attempt (another status; a 3xx, never followed; no answer within DELIVERY_TIMEOUT_MS; a connection or TLS error): ' +
      'retried after the next delay of DELIVERY_RETRY_SCHEDULE, and failed after the last.',
  },
};

/** docs/api.md 10.2: where each type goes. */
const targetOf = (type: SentEventType): string =>
  (EVENT_FIELDS as readonly string[]).includes(type)
    ? `the webhook's \`${type}\` URL when it has one, else its \`url\``
    : "the webhook's `url`";

/** docs/api.md 10.13: which webhooks take each type (the values of their `events`, the EventSubscription enum, that take it). */
const takersOf = (type: SentEventType): string => {
  if (type === TEST_EVENT) return 'the webhook tested, whatever its `events`';
  if (type === DISABLED_EVENT) return "the organization's other enabled webhooks that have no `events`";
  return `every webhook of the organization whose \`events\` is absent or lists \`${type}\` or \`${wildcardOf(type)}\``;
};

/** The event catalogue (docs/api.md 10.11) as OpenAPI 3.1 webhooks: the request a receiver gets, per event type. */
export function catalogueWebhooks(): WebhooksObject {
  return Object.fromEntries(
    CATALOGUED_EVENT_TYPES.map((type): [string, PathItemObject] => [
      type,
      {
        post: {
          operationId: `receive_${type}`,
          summary: EVENT_CATALOGUE[type].summary,
          description:
            `Sent to ${takersOf(type)}, at ${targetOf(type)}, with the webhook's custom \`headers\` beside these ` +
            '(the signature does not cover them). The body is the same bytes on every attempt: verify the signature over those bytes before parsing them.',
          parameters: HEADERS,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: eventBodySchema(type) as SchemaObject, example: exampleEventBody(type) } },
          },
          responses: ANSWERS,
        },
      },
    ]),
  );
}
