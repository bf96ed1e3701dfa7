import { Test } from '@nestjs/testing';
import type { OpenAPIObject, OperationObject, PathItemObject } from '@nestjs/swagger';
import { beforeAll, describe, expect, it } from 'vitest';
import { allControllers } from '../../test/support/unit/controllers';
import { openApiDocument } from './openapi-document';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const operationsOf = (items: Record<string, PathItemObject> = {}): OperationObject[] =>
  Object.values(items).flatMap((item) => METHODS.flatMap((method) => item[method] ?? []));

// The document of every controller (found by file name), their services left out: building it reads only decorators.
describe('openApiDocument: operationIds (issue 26)', () => {
  let document: OpenAPIObject;
  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ controllers: await allControllers() })
      .useMocker(() => ({}))
      .compile();
    const app = moduleRef.createNestApplication({ logger: false });
    document = openApiDocument(app);
    await app.close();
  });

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
      'checkHealth',
      'createWebhook',
      'deleteWebhook',
      'deleteWebhookByBody',
      'enableWebhook',
      'getCardProvisioning',
      'getDelivery',
      'getWebhook',
      'listAuditEntries',
      'listDeliveries',
      'listWebhooks',
      'recoverDeliveries',
      'replaceWebhook',
      'retryDelivery',
      'rotateWebhookSecret',
      'testWebhook',
      'updateWebhook',
    ]);
  });
});
