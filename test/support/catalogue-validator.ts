import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ParameterObject, PathItemObject, WebhooksObject } from '@nestjs/swagger';
import { catalogueWebhooks } from '../../src/openapi/openapi-document';

/** A request as a receiver got it. */
export interface CataloguedRequest {
  readonly method: string;
  readonly headers: Record<string, string>;
  readonly body: string;
}

interface EntryValidators {
  readonly body: ValidateFunction;
  readonly headers: readonly { readonly name: string; readonly validate: ValidateFunction }[];
}

/**
 * docs/api.md 10.11: checks requests against the event catalogue, the OpenAPI `webhooks` the
 * service serves (test/operations/operations.e2e-spec.ts holds the served ones equal to these): the body
 * against its type's JSON Schema (draft 2020-12, formats checked), every documented header
 * present and matching its schema. A type the catalogue does not list is a problem too.
 */
export class CatalogueValidator {
  private readonly entries: ReadonlyMap<string, EntryValidators>;

  constructor(webhooks: WebhooksObject = catalogueWebhooks()) {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats(ajv);
    this.entries = new Map(
      Object.entries(webhooks).map(([type, item]: [string, PathItemObject]) => {
        const post = item.post!;
        const schema = (post.requestBody as { content: Record<string, { schema: object }> }).content['application/json'].schema;
        const headers = (post.parameters as ParameterObject[]).map(({ name, schema: header }) => ({
          name,
          validate: ajv.compile(header as object),
        }));
        return [type, { body: ajv.compile(schema), headers }];
      }),
    );
  }

  /** The request's event type, when it is one, and what is wrong with the request (nothing: it is as catalogued). */
  check(request: CataloguedRequest): { type?: string; problems: string[] } {
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return { problems: ['the body is not JSON'] };
    }
    const type = (body as { type?: unknown } | null)?.type;
    const entry = typeof type === 'string' ? this.entries.get(type) : undefined;
    if (typeof type !== 'string' || entry === undefined) return { problems: [`${JSON.stringify(type)} is not a catalogued event type`] };
    const problems = request.method === 'POST' ? [] : [`${type}: sent with ${request.method}, not POST`];
    if (!entry.body(body)) problems.push(...entry.body.errors!.map((error) => `${type}: body${error.instancePath} ${error.message}`));
    for (const { name, validate } of entry.headers) {
      const value = request.headers[name];
      if (value === undefined) problems.push(`${type}: no ${name} header`);
      else if (!validate(value)) problems.push(`${type}: ${name} ${JSON.stringify(value)} ${validate.errors![0].message}`);
    }
    return { type, problems };
  }
}
