import { Injectable, Optional, PipeTransform } from '@nestjs/common';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import { Errors } from '../common/domain-error';
import { AddressPolicy, PUBLIC_ONLY } from '../url-safety/public-address';
import { checkUrl } from '../url-safety/url-rules';
import { DeleteWebhookDto, CreateWebhookDto, ReplaceWebhookDto, RotateSecretDto, WebhookUrlsDto } from './dto/webhook-body.dto';
import { WebhookPatchDto } from './dto/webhook-patch.dto';
import { draftOf, fieldsOfBody, patchOf } from './webhook.mapper';
import { CheckedUrl, DEFAULT_GRACE_SECONDS, UrlField, WEBHOOK_NAME_PATTERN, WebhookDraft, WebhookPatch } from './webhook.model';

/*
 * The validation of docs/api.md 5 before any database or DNS work, in one place. A request breaking
 * several rules gets the code of the first kind it breaks: the name (`invalid name`), then the
 * shape (`bad request`), then the static URL rules (`invalid url`); `message` names every
 * offending field of that kind.
 */

/** `POST /webhook/{name}/secret/rotate`: the grace period in seconds (default one day). */
@Injectable()
export class RotateSecretBodyPipe implements PipeTransform<unknown, number> {
  transform(body: unknown): number {
    return validateShape(RotateSecretDto, body).graceSeconds ?? DEFAULT_GRACE_SECONDS;
  }
}

const NAME_RULE = `name: must match ${WEBHOOK_NAME_PATTERN.source}`;

/** The `{name}` path parameter. */
@Injectable()
export class WebhookNamePipe implements PipeTransform<string, string> {
  transform(name: string): string {
    if (!WEBHOOK_NAME_PATTERN.test(name)) throw Errors.invalidName([NAME_RULE]);
    return name;
  }
}

/** The pipes that check URLs: an IP-literal host must be allowed by the AddressPolicy (TRUSTED_CIDRS). */
@Injectable()
abstract class UrlCheckingPipe {
  constructor(@Optional() private readonly addresses: AddressPolicy = PUBLIC_ONLY) {}

  protected draftOf(dto: WebhookUrlsDto): WebhookDraft {
    return draftOf(this.checkUrls(fieldsOfBody<string>(dto)), dto);
  }

  /** The static URL rules (docs/api.md 5.1, 1-5) for every URL given; null (a patch's "clear") passes. */
  protected checkUrls<T extends string | null>(given: [UrlField, T][]): [UrlField, CheckedUrl | Extract<T, null>][] {
    const problems: string[] = [];
    const checked = given.map(([field, value]): [UrlField, CheckedUrl | Extract<T, null>] => {
      if (value === null) return [field, value as Extract<T, null>];
      const verdict = checkUrl(value, this.addresses.allows);
      if (!verdict.ok) problems.push(`${field}: ${verdict.problem}`);
      return [field, verdict.ok ? { href: verdict.href, hostname: verdict.hostname } : { href: '' }];
    });
    if (problems.length > 0) throw Errors.invalidUrl(problems);
    return checked;
  }
}

/** `POST /webhook/{name}`: the URLs, and the body name when one was sent. */
@Injectable()
export class CreateWebhookBodyPipe extends UrlCheckingPipe implements PipeTransform<unknown, { name?: string; draft: WebhookDraft }> {
  transform(body: unknown) {
    const dto = validateShape(CreateWebhookDto, body);
    return { name: dto.name, draft: this.draftOf(dto) };
  }
}

/** `POST /webhook` (legacy create-or-update). */
@Injectable()
export class ReplaceWebhookBodyPipe extends UrlCheckingPipe implements PipeTransform<unknown, { name: string; draft: WebhookDraft }> {
  transform(body: unknown) {
    const dto = validateShape(ReplaceWebhookDto, body);
    return { name: dto.name, draft: this.draftOf(dto) };
  }
}

/** `DELETE /webhook` (legacy). */
@Injectable()
export class DeleteWebhookBodyPipe implements PipeTransform<unknown, string> {
  transform(body: unknown): string {
    return validateShape(DeleteWebhookDto, body).name;
  }
}

/** `PATCH /webhook/{name}`. */
@Injectable()
export class WebhookPatchBodyPipe extends UrlCheckingPipe implements PipeTransform<unknown, WebhookPatch> {
  transform(body: unknown): WebhookPatch {
    const dto = validateShape(WebhookPatchDto, body);
    return patchOf(this.checkUrls(fieldsOfBody<string | null>(dto)), dto);
  }
}

/**
 * Keys class-transformer would hide from the whitelist: it skips `__proto__`, `constructor` and
 * every key naming an inherited function (`toString`, `valueOf`, ...). Found at any depth,
 * iteratively, and refused as the unknown members they are.
 */
function inheritedKeys(body: object): string[] {
  const found: string[] = [];
  const pending: [value: unknown, path: string][] = [[body, '']];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    for (const key of Object.keys(value)) {
      const at = path ? `${path}.${key}` : key;
      if (key in Object.prototype) found.push(`${at}: unknown member`);
      else pending.push([(value as Record<string, unknown>)[key], at]);
    }
  }
  return found.sort();
}

/** A webhook body is two objects deep (body, group); what lies below this is never valid. */
const MAX_DEPTH = 3;

/**
 * A copy with every container below MAX_DEPTH emptied, because class-transformer recurses
 * without a bound (a deep enough body overflows the stack). Validation still names what is
 * wrong: `{"name":[[[…]]]}` is still a name that is not a string.
 */
function capDepth(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value)) return value.map((item) => capDepth(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, capDepth(item, depth + 1)]));
}

/** class-validator over a JSON body; throws `invalid name` or `bad request`. */
function validateShape<T extends object>(dto: ClassConstructor<T>, body: unknown): T {
  // No body at all counts as {} (a legacy delete without one lacks its name); anything sent
  // must be an object.
  const plain = body === undefined ? {} : body;
  if (typeof plain !== 'object' || plain === null || Array.isArray(plain)) throw Errors.badRequest(['body: must be a JSON object']);
  const inherited = inheritedKeys(plain);
  if (inherited.length > 0) throw Errors.badRequest(inherited);

  const instance = plainToInstance(dto, capDepth(plain));
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true, stopAtFirstError: true });
  const problems = errors.flatMap((error) => flatten(error, ''));
  // A name the body may carry but got wrong; a `name` the body may not carry is a shape error.
  const nameProblems = problems.filter((p) => p.path === 'name' && !p.unknownMember);
  if (nameProblems.length > 0) throw Errors.invalidName(nameProblems.map((p) => p.message));
  if (problems.length > 0) throw Errors.badRequest(problems.map((p) => p.message));
  return instance;
}

interface Problem {
  path: string;
  message: string;
  unknownMember: boolean;
}

function flatten(error: ValidationError, parent: string): Problem[] {
  const path = parent ? `${parent}.${error.property}` : error.property;
  const own = Object.entries(error.constraints ?? {}).map(([rule, text]): Problem => {
    const unknownMember = rule === 'whitelistValidation';
    return { path, unknownMember, message: `${path}: ${unknownMember ? 'unknown member' : text}` };
  });
  return [...own, ...(error.children ?? []).flatMap((child) => flatten(child, path))];
}
