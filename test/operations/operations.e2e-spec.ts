import { randomBytes } from 'node:crypto';
import type { WebhooksObject } from '@nestjs/swagger';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogueWebhooks } from '../../src/openapi/openapi-document';
import { MetricsServer } from '../../src/monitoring/metrics-server';
import { CatalogueValidator } from '../support/catalogue-validator';
import { describeEachDatabase } from '../support/databases';
import { SESSION_COOKIE, TestApp } from '../support/test-app';

/* docs/api.md 9: health, the OpenAPI document and Swagger UI, and the request logs. */

const HOST = 'hooks.example.com';
const NAME_PATTERN = '^[a-z0-9-]{1,64}$';

type Json = Record<string, unknown>;

/** What docs/api.md 5.3 (with docs/api.md 4) says each webhook operation answers: success and error codes by status. */
const AUTH_ERRORS = { 401: ['unauthorized'], 403: ['no organization', 'no permission'] };
const BODY_ERRORS = { 413: ['payload too large'], 415: ['unsupported media type'] };
const WEBHOOK_OPERATIONS: { path: string; method: string; success: number; errors: Record<number, string[]> }[] = [
  { path: '/api/webhook', method: 'get', success: 200, errors: { ...AUTH_ERRORS } },
  { path: '/api/webhook/{name}', method: 'get', success: 200, errors: { ...AUTH_ERRORS, 400: ['invalid name'], 404: ['not found'] } },
  {
    path: '/api/webhook/{name}',
    method: 'post',
    success: 201,
    errors: {
      ...AUTH_ERRORS,
      ...BODY_ERRORS,
      400: ['invalid name', 'bad request', 'invalid url', 'limit reached'],
      409: ['name conflict'],
      503: ['dns unavailable'],
    },
  },
  {
    path: '/api/webhook',
    method: 'post',
    success: 200,
    errors: {
      ...AUTH_ERRORS,
      ...BODY_ERRORS,
      400: ['invalid name', 'bad request', 'invalid url', 'limit reached'],
      503: ['dns unavailable'],
    },
  },
  {
    path: '/api/webhook/{name}',
    method: 'patch',
    success: 200,
    errors: {
      ...AUTH_ERRORS,
      ...BODY_ERRORS,
      400: ['invalid name', 'bad request', 'invalid url'],
      404: ['not found'],
      503: ['dns unavailable'],
    },
  },
  { path: '/api/webhook/{name}', method: 'delete', success: 200, errors: { ...AUTH_ERRORS, 400: ['invalid name'], 404: ['not found'] } },
  {
    path: '/api/webhook',
    method: 'delete',
    success: 200,
    errors: { ...AUTH_ERRORS, ...BODY_ERRORS, 400: ['invalid name', 'bad request'] },
  },
];

describeEachDatabase('health', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start(kind);
  });
  afterAll(() => t.close());

  it('answers GET /health 200 with status ok while the database answers', async () => {
    const res = await t.http().get('/health');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json\b/);
    expect(res.body.status).toBe('ok');
  });

  it('needs no credentials', async () => {
    expect((await t.http().get('/health').set('Cookie', `${SESSION_COOKIE}=nonsense`)).status).toBe(200);
  });

  it('is not under the API prefix', async () => {
    const res = await t.http().get('/api/health');
    expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { code: 'not found' } });
  });

  it('answers only what a load balancer needs: no figure that costs more than a ping', async () => {
    expect((await t.http().get('/health')).body).toEqual({ status: 'ok', database: 'up' });
  });

  it('serves no metrics without METRICS_PORT: nothing listens for them', () => {
    expect(t.app.get(MetricsServer).port).toBeUndefined();
  });
});

describeEachDatabase('OpenAPI document and Swagger UI', (kind) => {
  let t: TestApp;
  let doc: Json;

  beforeAll(async () => {
    t = await TestApp.start(kind);
    const res = await t.http().get('/docs/openapi.json');
    expect(res.status).toBe(200);
    doc = res.body as Json;
  });
  afterAll(() => t.close());

  /** Follows a local `$ref` (`#/components/...`); other values come back unchanged. */
  const resolve = (value: unknown): Json => {
    let node = value as Json;
    while (typeof node?.$ref === 'string') {
      node = (node.$ref as string)
        .replace(/^#\//, '')
        .split('/')
        .reduce<Json>((at, key) => at[key] as Json, doc);
    }
    return node;
  };
  const operation = (path: string, method: string): Json => ((doc.paths as Json)[path] as Json)?.[method] as Json;
  const responses = (path: string, method: string): Json => operation(path, method).responses as Json;
  const requestSchema = (path: string, method: string, type = 'application/json'): Json =>
    resolve((((operation(path, method).requestBody as Json).content as Json)[type] as Json).schema);
  const errorSchema = (path: string, method: string, status: number): Json =>
    resolve(((responses(path, method)[status] as Json).content as Json)['application/json'] as Json).schema as Json;

  it('is served as JSON', async () => {
    const res = await t.http().get('/docs/openapi.json');
    expect(res.headers['content-type']).toMatch(/^application\/json\b/);
  });

  it('is an OpenAPI 3.1 document', () => {
    expect(doc.openapi).toBe('3.1.0');
  });

  it('lists exactly the webhook operations under /api/webhook and /api/webhook/{name}', () => {
    const paths = doc.paths as Record<string, Json>;
    const methods = (path: string) =>
      Object.keys(paths[path] ?? {})
        .filter((key) => key !== 'parameters')
        .sort();
    expect(methods('/api/webhook')).toEqual(['delete', 'get', 'post']);
    expect(methods('/api/webhook/{name}')).toEqual(['delete', 'get', 'patch', 'post']);
  });

  it('gives every webhook operation a distinct operationId', () => {
    const ids = WEBHOOK_OPERATIONS.map(({ path, method }) => operation(path, method).operationId);
    for (const id of ids) expect(typeof id).toBe('string');
    expect(new Set(ids).size).toBe(WEBHOOK_OPERATIONS.length);
  });

  it('gives the {name} path parameter the name pattern, required', () => {
    for (const { path, method } of WEBHOOK_OPERATIONS.filter((op) => op.path.endsWith('{name}'))) {
      const params = (operation(path, method).parameters as Json[]).map(resolve).filter((p) => p.in === 'path');
      expect(params).toHaveLength(1);
      expect(params[0]).toMatchObject({ name: 'name', required: true, schema: { type: 'string', pattern: NAME_PATTERN } });
    }
  });

  it('requires url, and not name, in the create body, and gives its name the pattern', () => {
    const schema = requestSchema('/api/webhook/{name}', 'post');
    expect(schema.required).toContain('url');
    expect(schema.required).not.toContain('name');
    expect((schema.properties as Json).name).toMatchObject({ pattern: NAME_PATTERN });
  });

  it('requires name and url in the legacy create-or-update body', () => {
    const schema = requestSchema('/api/webhook', 'post');
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'url']));
    expect((schema.properties as Json).name).toMatchObject({ pattern: NAME_PATTERN });
  });

  it('requires name in the legacy delete body', () => {
    const schema = requestSchema('/api/webhook', 'delete');
    expect(schema.required).toEqual(['name']);
    expect((schema.properties as Json).name).toMatchObject({ pattern: NAME_PATTERN });
  });

  it('takes the PATCH body as JSON or JSON Merge Patch, without a name member', () => {
    const content = (operation('/api/webhook/{name}', 'patch').requestBody as Json).content as Json;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/merge-patch+json']);
    const schema = requestSchema('/api/webhook/{name}', 'patch', 'application/merge-patch+json');
    expect(Object.keys(schema.properties as Json)).not.toContain('name');
    expect(schema.required ?? []).toEqual([]);
  });

  it('defines a cookie security scheme for __Secure-auth.session_token and applies it to every webhook operation', () => {
    const schemes = (doc.components as Json).securitySchemes as Record<string, Json>;
    const names = Object.keys(schemes).filter((key) => schemes[key].type === 'apiKey' && schemes[key].in === 'cookie');
    expect(names).toHaveLength(1);
    expect(schemes[names[0]].name).toBe(SESSION_COOKIE);
    for (const { path, method } of WEBHOOK_OPERATIONS) {
      expect(operation(path, method).security).toEqual([{ [names[0]]: [] }]);
    }
  });

  it('declares every security scheme an operation names', () => {
    const declared = Object.keys((doc.components as Json).securitySchemes as Json);
    const named = Object.values(doc.paths as Json)
      .flatMap((methods) => Object.values(methods as Json))
      .flatMap((op) => (((op as Json).security ?? []) as Json[]).flatMap((requirement) => Object.keys(requirement)));
    expect(named).toContain('platform-key');
    expect(named.filter((name) => !declared.includes(name))).toEqual([]);
  });

  it('leaves /health without security', () => {
    expect(operation('/health', 'get').security ?? []).toEqual([]);
  });

  for (const op of WEBHOOK_OPERATIONS) {
    const title = `${op.method.toUpperCase()} ${op.path}`;

    it(`documents the ${op.success} success of ${title}`, () => {
      const documented = Object.keys(responses(op.path, op.method)).filter((status) => status.startsWith('2'));
      expect(documented).toEqual([String(op.success)]);
    });

    it(`documents every error status of ${title} with its codes`, () => {
      const documented = Object.fromEntries(
        Object.keys(responses(op.path, op.method))
          .filter((status) => Number(status) >= 400)
          .map((status) => [status, ((errorSchema(op.path, op.method, Number(status)).properties as Json).code as Json).enum]),
      );
      for (const [status, codes] of Object.entries(op.errors)) {
        expect({ status, codes: documented[status] }).toEqual({ status, codes: expect.arrayContaining(codes) });
      }
    });

    it(`gives every error answer of ${title} a schema requiring code, with message a string array`, () => {
      for (const status of Object.keys(responses(op.path, op.method)).filter((s) => Number(s) >= 400)) {
        const schema = errorSchema(op.path, op.method, Number(status));
        expect({ status, required: schema.required }).toEqual({ status, required: ['code'] });
        expect((schema.properties as Json).code).toMatchObject({ type: 'string' });
        const message = (schema.properties as Json).message as Json | undefined;
        if (message !== undefined) expect(message).toMatchObject({ type: 'array', items: { type: 'string' } });
      }
    });
  }

  it('documents 503 unavailable (database unreachable, docs/api.md 7) on every webhook operation', () => {
    for (const { path, method } of WEBHOOK_OPERATIONS) {
      const codes = responses(path, method)[503] && ((errorSchema(path, method, 503).properties as Json).code as Json).enum;
      expect({ operation: `${method} ${path}`, codes }).toEqual({
        operation: `${method} ${path}`,
        codes: expect.arrayContaining(['unavailable']),
      });
    }
  });

  it('documents 503 unavailable on GET /health', () => {
    expect(((errorSchema('/health', 'get', 503).properties as Json).code as Json).enum).toEqual(['unavailable']);
  });

  it('serves the Swagger UI at GET /docs', async () => {
    const res = await t.http().get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html\b/);
    expect(res.text).toMatch(/swagger-ui/i);
  });

  it('serves the scripts and stylesheets the Swagger UI page loads', async () => {
    const page = (await t.http().get('/docs')).text;
    const assets = [...page.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((m) => new URL(m[1], 'http://x/docs').pathname);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      expect({ asset, status: (await t.http().get(asset)).status }).toEqual({ asset, status: 200 });
    }
  });
});

/** Every Schema Object of an OpenAPI document, by where it is: components' schemas, and every `schema` of a parameter, media type or header. */
function schemasOf(document: Json): [string, Json][] {
  const found: [string, Json][] = Object.entries(((document.components as Json).schemas ?? {}) as Json).map(([name, schema]) => [
    `components/${name}`,
    schema as Json,
  ]);
  const walk = (node: unknown, where: string): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'schema') found.push([where, value as Json]);
      else if (key !== 'example' && key !== 'examples') walk(value, `${where}/${key}`);
    }
  };
  walk(document.paths, 'paths');
  walk(document.webhooks, 'webhooks');
  return found;
}

// The document does not depend on the database: checked once, on SQLite.
describe('OpenAPI 3.1 and the event catalogue (docs/api.md 9, 10.11) [sqlite]', () => {
  let t: TestApp;
  let doc: Json;

  beforeAll(async () => {
    t = await TestApp.start('sqlite');
    doc = (await t.http().get('/docs/openapi.json').expect(200)).body as Json;
  });
  afterAll(() => t.close());

  it('validates against the official OpenAPI 3.1 schema', async () => {
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const validator = new Validator();
    expect(await validator.validate(doc)).toEqual({ valid: true });
    expect(validator.version).toBe('3.1');
  });

  it("writes every schema in JSON Schema 2020-12, with none of OpenAPI 3.0's keywords (nullable, boolean exclusive bounds)", () => {
    const ajv = addFormats(new Ajv2020({ strict: true }));
    // Ajv knows OpenAPI 3.0's `nullable`; dropped here, strict mode refuses it as an unknown keyword.
    ajv.removeKeyword('nullable');
    // The keywords the OpenAPI 3.1 dialect adds to draft 2020-12.
    ajv.addVocabulary(['discriminator', 'example', 'externalDocs', 'xml']);
    const toComponents = (schema: Json): Json =>
      JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"components#/$defs/'));
    ajv.addSchema({ $id: 'components', $defs: toComponents(((doc.components as Json).schemas ?? {}) as Json) });
    const schemas = schemasOf(doc);
    expect(schemas.length).toBeGreaterThan(100);
    const refused = schemas.flatMap(([where, schema]) => {
      try {
        ajv.compile(toComponents(schema));
        return [];
      } catch (error) {
        return [`${where}: ${(error as Error).message}`];
      }
    });
    expect(refused).toEqual([]);
  });

  it('has one webhook per event type the service sends: the catalogue the test receivers check every delivery against', () => {
    expect(Object.keys(doc.webhooks as Json)).toEqual([
      'transaction.created',
      'transaction.updated',
      'transaction.completed',
      'card.updated',
      'user.updated',
      'webhook.test',
      'webhook.disabled',
    ]);
    expect(doc.webhooks).toEqual(catalogueWebhooks());
  });

  it("describes each as the request a receiver gets: the 10.3 headers, the body's schema and an example that passes them, the 10.5 answers", () => {
    const validator = new CatalogueValidator(doc.webhooks as WebhooksObject);
    for (const [type, item] of Object.entries(doc.webhooks as Record<string, { post: Json }>)) {
      const parameters = item.post.parameters as Json[];
      expect(parameters.map(({ name, in: where, required }) => [name, where, required])).toEqual(
        ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent'].map((name) => [name, 'header', true]),
      );
      const media = ((item.post.requestBody as Json).content as Json)['application/json'] as Json;
      expect(media.schema).toMatchObject({
        required: ['type', 'timestamp', 'data'],
        additionalProperties: false,
        properties: { type: { const: type } },
      });
      const headers = Object.fromEntries(parameters.map(({ name, example }) => [name as string, example as string]));
      expect(validator.check({ method: 'POST', headers, body: JSON.stringify(media.example) })).toEqual({ type, problems: [] });
      expect(Object.keys(item.post.responses as Json).sort()).toEqual(['2XX', '410', '429', '503', 'default']);
    }
  });
});

describeEachDatabase('request logs', (kind) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: { [HOST]: { A: ['93.184.215.14'] } } });
  });
  afterAll(() => t.close());

  const parsed = (): Json[] => t.logs.map((line) => JSON.parse(line) as Json);

  /** The request lines of this request id, once the response has finished being logged. */
  async function requestLines(requestId: string): Promise<Json[]> {
    const lines = () => parsed().filter((line) => line.requestId === requestId && line.msg === 'request');
    await expect.poll(() => lines().length, { timeout: 2000, interval: 20 }).toBeGreaterThan(0);
    return lines();
  }

  const newRequestId = () => `test-${randomBytes(8).toString('hex')}`;

  it('writes every log line as one JSON object', async () => {
    await t.http().get('/health');
    expect(t.logs.length).toBeGreaterThan(0);
    for (const line of t.logs) {
      expect(line.endsWith('\n')).toBe(true);
      expect(line.trimEnd()).not.toContain('\n');
      expect(typeof JSON.parse(line)).toBe('object');
    }
  });

  it('writes one line per request with requestId, method, route, status and durationMs', async () => {
    const { cookie } = await t.member('owner');
    const requestId = newRequestId();
    const res = await t.http().get('/api/webhook/missing').set('Cookie', cookie).set('X-Request-Id', requestId);
    expect(res.status).toBe(404);
    const lines = await requestLines(requestId);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ requestId, method: 'GET', route: '/api/webhook/:name', status: 404 });
    expect(typeof lines[0].durationMs).toBe('number');
    expect(lines[0].durationMs as number).toBeGreaterThanOrEqual(0);
  });

  it('echoes a caller-supplied X-Request-Id and logs the request under it', async () => {
    const requestId = newRequestId();
    const res = await t.http().get('/health').set('X-Request-Id', requestId);
    expect(res.headers['x-request-id']).toBe(requestId);
    expect(await requestLines(requestId)).toEqual([expect.objectContaining({ requestId, method: 'GET', route: '/health', status: 200 })]);
  });

  it('gives a request without X-Request-Id an id, in the answer and in the log', async () => {
    const res = await t.http().get('/health');
    const requestId = res.headers['x-request-id'];
    expect(requestId).toMatch(/^\S{8,}$/);
    expect(await requestLines(requestId)).toHaveLength(1);
  });

  it('logs a request that no route matches', async () => {
    const requestId = newRequestId();
    await t.http().get('/api/nope').set('X-Request-Id', requestId);
    expect(await requestLines(requestId)).toEqual([expect.objectContaining({ requestId, method: 'GET', status: 404 })]);
  });

  it('never logs tokens, cookies, Authorization values or signing secrets', async () => {
    const owner = await t.member('owner');
    const wallet = await t.identity.createWalletToken(owner.userId, 3600);
    const forbidden: string[] = [owner.token, owner.cookie, `Bearer ${wallet.token}`, wallet.token];
    const ids: string[] = [];
    const send = async (build: (id: string) => Promise<{ status: number; body: Json }>) => {
      const id = newRequestId();
      ids.push(id);
      return build(id);
    };

    const created = await send((id) =>
      t
        .http()
        .post('/api/webhook/logged')
        .set('Cookie', owner.cookie)
        .set('X-Request-Id', id)
        .send({ url: `https://${HOST}/a` }),
    );
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_/);
    forbidden.push(created.body.secret as string);

    const legacyNew = await send((id) =>
      t
        .http()
        .post('/api/webhook')
        .set('Cookie', owner.cookie)
        .set('X-Request-Id', id)
        .send({ name: 'legacy', url: `https://${HOST}/b` }),
    );
    expect(legacyNew.status).toBe(200);
    expect(legacyNew.body.secret).toMatch(/^whsec_/);
    forbidden.push(legacyNew.body.secret as string);

    const legacyUpdate = await send((id) =>
      t
        .http()
        .post('/api/webhook')
        .set('Cookie', owner.cookie)
        .set('X-Request-Id', id)
        .send({ name: 'logged', url: `https://${HOST}/c` }),
    );
    expect(legacyUpdate.body.secret).toBe(created.body.secret);

    const bearer = await send((id) => t.http().get('/api/webhook').set('Authorization', `Bearer ${wallet.token}`).set('X-Request-Id', id));
    expect(bearer.status).toBe(401);

    const failing = await send((id) =>
      t
        .http()
        .post('/api/webhook/logged')
        .set('Cookie', owner.cookie)
        .set('X-Request-Id', id)
        .send({ url: `https://${HOST}/d` }),
    );
    expect(failing.status).toBe(409);

    for (const id of ids) expect(await requestLines(id)).toHaveLength(1);
    const leaks = t.logs.filter((line) => forbidden.some((secret) => line.includes(secret)));
    expect(leaks).toEqual([]);
    const secretShaped = t.logs.filter((line) => /whsec_|__Secure-auth/.test(line));
    expect(secretShaped).toEqual([]);
  });
});
