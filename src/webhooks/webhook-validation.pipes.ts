import { Injectable, Optional, PipeTransform } from '@nestjs/common';
import type { RequestParts } from '../common/validation/request-input';
import { validateBody, validateParameters } from '../common/validation/validate-input';
import { Errors } from '../common/domain-error';
import { AddressPolicy, PUBLIC_ONLY } from '../url-safety/public-address';
import { UrlResolution } from '../url-safety/url-resolution';
import { checkUrl, portOf } from '../url-safety/url-rules';
import { DeleteWebhookDto, CreateWebhookDto, ReplaceWebhookDto, RotateSecretDto, WebhookUrlsDto } from './dto/webhook-body.dto';
import { WebhookPatchDto } from './dto/webhook-patch.dto';
import { WebhookPathDto } from './dto/webhook-path.dto';
import { draftOf, fieldsOfBody, patchOf, tokenUrlFieldOf } from './webhook.mapper';
import { CheckedUrl, DEFAULT_GRACE_SECONDS, UrlMember, WEBHOOK_NAME_PATTERN, WebhookDraft, WebhookPatch } from './webhook.model';

/*
 * The validation of docs/api.md 5 before any database work: one pipe per route, over its
 * RequestInput, checking in the order docs/api.md gives. A request breaking several rules gets the
 * code of the first kind it breaks: the name (`invalid name`: the path's, then the body's), then
 * the shape (`bad request`), then the static URL rules (`invalid url`); `message` names every
 * offending field of that kind. DNS is the service's, after its own checks (a conflict, the cap,
 * a 404), except when a static URL rule is broken: the request's other URLs are then resolved
 * here, so that the one 400 names every URL that breaks a rule (5.1, rule 7).
 */

/** A webhook to create or replace: its name and what its body sets. */
export interface NamedDraft {
  readonly name: string;
  readonly draft: WebhookDraft;
}

/**
 * The `{name}` of the path (400 `invalid name` off the pattern): every route under `webhook/{name}`
 * checks it first. A name on the pattern is all WebhookPathDto asks, so it passes without the
 * validation engine's metadata walk (a quarter of a read's own work, docs/performance.md); any other
 * goes through the DTO, which words the 400.
 */
export const webhookNameOf = ({ params }: RequestParts): string => {
  const { name } = params;
  if (typeof name === 'string' && WEBHOOK_NAME_PATTERN.test(name)) return name;
  return validateParameters(WebhookPathDto, params).name;
};

/** A route whose only input is the path's name: read, delete, and the delivery routes that take nothing else. */
@Injectable()
export class WebhookNamePipe implements PipeTransform<RequestParts, string> {
  transform(parts: RequestParts): string {
    return webhookNameOf(parts);
  }
}

/** `POST /webhook/{name}/secret/rotate`: the name, then the grace period in seconds (default one day). */
@Injectable()
export class RotateSecretPipe implements PipeTransform<RequestParts, { name: string; graceSeconds: number }> {
  transform(parts: RequestParts) {
    const name = webhookNameOf(parts);
    return { name, graceSeconds: validateBody(RotateSecretDto, parts.body).graceSeconds ?? DEFAULT_GRACE_SECONDS };
  }
}

/** The pipes that check URLs: an IP-literal host must be allowed by the AddressPolicy (TRUSTED_CIDRS). */
@Injectable()
abstract class UrlCheckingPipe {
  constructor(
    private readonly resolution: UrlResolution,
    @Optional() private readonly addresses: AddressPolicy = PUBLIC_ONLY,
  ) {}

  protected async draftOf(dto: WebhookUrlsDto): Promise<WebhookDraft> {
    return draftOf(await this.checkUrls([...fieldsOfBody<string>(dto), ...tokenUrlFieldOf<string>(dto.auth)]), dto);
  }

  /**
   * The static URL rules (docs/api.md 5.1, 1-5) for every URL given, an oauth2 auth's token URL
   * among them (docs/api.md 10.16); null (a patch's "clear")
   * passes. When one is broken, the names of the others are resolved as well and their 400s
   * (not public, does not resolve) join the message, in the order of the fields; a resolver
   * failure among them loses to the 400 (rule 7).
   */
  protected async checkUrls<T extends string | null>(given: [UrlMember, T][]): Promise<[UrlMember, CheckedUrl | Extract<T, null>][]> {
    const problems = new Map<UrlMember, string>();
    const checked = given.map(([field, value]): [UrlMember, CheckedUrl | Extract<T, null>] => {
      if (value === null) return [field, value as Extract<T, null>];
      const verdict = checkUrl(value, this.addresses.allows);
      if (!verdict.ok) problems.set(field, `${field}: ${verdict.problem}`);
      return [field, verdict.ok ? { href: verdict.href, hostname: verdict.hostname } : { href: '' }];
    });
    if (problems.size === 0) return checked;
    const named = checked.flatMap(([field, url]) =>
      url?.hostname === undefined || problems.has(field) ? [] : [{ field, hostname: url.hostname, port: portOf(url.href) }],
    );
    const resolved = named.length === 0 ? undefined : await this.resolution.check(named);
    const unresolved = new Set(resolved?.kind === 'invalid' ? resolved.messages : []);
    const messages = given.flatMap(([field]) => [
      ...(problems.has(field) ? [problems.get(field)!] : []),
      ...[...unresolved].filter((message) => message.startsWith(`${field}: `)),
    ]);
    throw Errors.invalidUrl(messages);
  }
}

/** `POST /webhook/{name}`: the path's name, then the body (a body name is checked, and loses to the path's), then its URLs. */
@Injectable()
export class CreateWebhookPipe extends UrlCheckingPipe implements PipeTransform<RequestParts, Promise<NamedDraft>> {
  async transform(parts: RequestParts): Promise<NamedDraft> {
    const name = webhookNameOf(parts);
    const dto = validateBody(CreateWebhookDto, parts.body);
    return { name, draft: await this.draftOf(dto) };
  }
}

/** `POST /webhook` (legacy create-or-update): the body (its name first), then its URLs. */
@Injectable()
export class ReplaceWebhookPipe extends UrlCheckingPipe implements PipeTransform<RequestParts, Promise<NamedDraft>> {
  async transform({ body }: RequestParts): Promise<NamedDraft> {
    const dto = validateBody(ReplaceWebhookDto, body);
    return { name: dto.name, draft: await this.draftOf(dto) };
  }
}

/** `DELETE /webhook` (legacy): the body's name. */
@Injectable()
export class DeleteWebhookByBodyPipe implements PipeTransform<RequestParts, string> {
  transform({ body }: RequestParts): string {
    return validateBody(DeleteWebhookDto, body).name;
  }
}

/** `PATCH /webhook/{name}`: the path's name, then the patch, then its URLs. */
@Injectable()
export class UpdateWebhookPipe
  extends UrlCheckingPipe
  implements PipeTransform<RequestParts, Promise<{ name: string; patch: WebhookPatch }>>
{
  async transform(parts: RequestParts): Promise<{ name: string; patch: WebhookPatch }> {
    const name = webhookNameOf(parts);
    const dto = validateBody(WebhookPatchDto, parts.body);
    const fields = [...fieldsOfBody<string | null>(dto), ...tokenUrlFieldOf<string>(dto.auth)];
    return { name, patch: patchOf(await this.checkUrls(fields), dto) };
  }
}
