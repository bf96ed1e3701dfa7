import { Test } from '@nestjs/testing';
import type { OpenAPIObject, OperationObject, PathItemObject, ReferenceObject, RequestBodyObject, SchemaObject } from '@nestjs/swagger';
import { beforeAll, describe, expect, it } from 'vitest';
import { allControllers } from '../../test/support/unit/controllers';
import { openApiDocument } from './openapi-document';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const operationsOf = (items: Record<string, PathItemObject> = {}): OperationObject[] =>
  Object.values(items).flatMap((item) => METHODS.flatMap((method) => item[method] ?? []));

// The document of every controller (found by file name), their services left out: building it reads only decorators.
let document: OpenAPIObject;
beforeAll(async () => {
  const moduleRef = await Test.createTestingModule({ controllers: await allControllers() })
    .useMocker(() => ({}))
    .compile();
  const app = moduleRef.createNestApplication({ logger: false });
  document = openApiDocument(app);
  await app.close();
});

describe('openApiDocument: operationIds (issue 26)', () => {
  it('gives every operation, the webhooks of the event catalogue included, an operationId of its own', () => {
    const ids = [...operationsOf(document.paths), ...operationsOf(document.webhooks)].map((operation) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it("names each route's operation by its handler: a verb and what it acts on, as generated clients call it", () => {
    expect(
      operationsOf(document.paths)
        .map((operation) => operation.operationId)
        .sort(),
    ).toEqual([
      'acceptEvent',
      'acceptEventBatch',
      'checkHealth',
      'createWebhook',
      'deleteWebhook',
      'deleteWebhookByBody',
      'enableWebhook',
      'getCardProvisioning',
      'getDelivery',
      'getProvisioningEntries',
      'getWebhook',
      'listAuditEntries',
      'listDeliveries',
      'listWebhooks',
      'provisionAppleWallet',
      'provisionGoogleWallet',
      'recoverDeliveries',
      'replaceWebhook',
      'retryDelivery',
      'rotateWebhookSecret',
      'testWebhook',
      'updateWebhook',
    ]);
  });
});

describe('openApiDocument: request bodies (docs/api.md 5, 10.15)', () => {
  const schemas = () => document.components!.schemas! as Record<string, SchemaObject>;
  /** Every object schema that lists properties, reached from a request body. */
  const bodySchemas = (): SchemaObject[] => {
    const found = new Set<SchemaObject>();
    const walk = (schema: SchemaObject | ReferenceObject | undefined): void => {
      if (schema === undefined) return;
      const target = '$ref' in schema ? schemas()[schema.$ref.split('/').pop()!] : schema;
      if (found.has(target)) return;
      if (target.properties !== undefined) found.add(target);
      for (const member of Object.values(target.properties ?? {})) walk(member);
      for (const part of [...(target.anyOf ?? []), ...(target.oneOf ?? []), ...(target.allOf ?? [])]) walk(part);
      walk(target.items);
    };
    for (const operation of operationsOf(document.paths)) {
      const body = operation.requestBody as RequestBodyObject | undefined;
      for (const media of Object.values(body?.content ?? {})) walk(media.schema);
    }
    return [...found];
  };

  it('closes every object a request body lists the members of to unknown members, as validation refuses them', () => {
    const open = bodySchemas().filter((schema) => schema.additionalProperties !== false);
    expect(bodySchemas().length).toBeGreaterThan(5);
    expect(open).toEqual([]);
  });

  it("leaves the free-form objects open: an event's data and a webhook's headers", () => {
    expect(schemas().EventBodyDto.properties!.data).toMatchObject({ type: 'object', additionalProperties: true });
    expect((schemas().CreateWebhookDto.properties!.headers as SchemaObject).additionalProperties).toMatchObject({ type: 'string' });
  });

  it('describes a batch (docs/api.md 10.1.1) as 1-100 events, each the body of POST /events and its idempotency key', () => {
    expect(schemas().EventBatchDto.properties!.events).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: 100,
      items: { $ref: '#/components/schemas/BatchEventDto' },
    });
    const event = schemas().BatchEventDto;
    expect(event.required!.sort()).toEqual(['data', 'organization', 'type']);
    expect(Object.keys(event.properties!).sort()).toEqual(['data', 'idempotencyKey', 'organization', 'type']);
    expect(event).toMatchObject({ additionalProperties: false, properties: { data: { type: 'object', additionalProperties: true } } });
  });

  it("bounds a create's headers at 20, and a patch's only in the set it leaves (null members remove)", () => {
    expect(schemas().CreateWebhookDto.properties!.headers).toMatchObject({ maxProperties: 20 });
    expect(schemas().WebhookPatchDto.properties!.headers).not.toHaveProperty('maxProperties');
  });
});
