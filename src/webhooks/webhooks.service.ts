import { Injectable } from '@nestjs/common';
import type { Actor } from '../audit/audit.model';
import { Errors } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import { SealedSecret, SecretBox } from '../crypto/secret-box';
import { NamedUrl, UrlResolution } from '../url-safety/url-resolution';
import { portOf } from '../url-safety/url-rules';
import type { CreatedWebhookDto, NamedWebhookDto, ReplacedWebhookDto, RotatedSecretDto, WebhookDto } from './dto/webhook-responses.dto';
import { HeaderList, headerLimitProblems, mergeHeaders } from './custom-headers';
import { columnsOfPatch, columnsOfStored, headerColumnsOf, storedOf, toWebhookBody, urlsOf, webhookListJson } from './webhook.mapper';
import {
  CheckedUrl,
  customHeadersBinding,
  newSigningSecret,
  signingSecretBinding,
  UrlField,
  WebhookDraft,
  WebhookPatch,
} from './webhook.model';
import { HeadersWrite, WebhooksRepository } from './webhooks.repository';

/** How a write changes the custom headers: replaces them all (create, legacy create-or-update), or merges a patch in (null: removes them all). */
type HeadersChange = { readonly replace: HeaderList } | { readonly merge: Readonly<Record<string, string | null>> | null };

/**
 * The webhook operations of docs/api.md 5.3 for one organization. Input arrives validated by
 * the pipes (name, shape, static URL rules); here come the checks that need the database
 * (which run before any DNS work), then name resolution, then the atomic write, which
 * enforces the name and the cap again.
 */
@Injectable()
export class WebhooksService {
  private readonly max: number;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly resolution: UrlResolution,
    private readonly secrets: SecretBox,
    config: AppConfig,
  ) {
    this.max = config.webhooksPerOrgMax;
  }

  async listJson(organizationId: number): Promise<string> {
    return webhookListJson(await this.webhooks.listByOrganization(organizationId));
  }

  async get(organizationId: number, name: string): Promise<WebhookDto> {
    const webhook = await this.webhooks.findByName(organizationId, name);
    if (!webhook) throw Errors.notFound();
    return toWebhookBody(webhook);
  }

  async create(organizationId: number, actor: Actor, name: string, draft: WebhookDraft): Promise<CreatedWebhookDto> {
    const { taken, count } = await this.webhooks.countWithName(organizationId, name);
    if (taken) throw Errors.nameConflict();
    if (count >= this.max) throw Errors.limitReached(this.max);
    await this.requireResolvable(urlsOf(draft));

    const secret = newSigningSecret();
    const stored = storedOf(draft);
    const outcome = await this.webhooks.insert(
      organizationId,
      name,
      columnsOfStored(stored),
      this.secrets.seal(secret, signingSecretBinding(organizationId, name)),
      this.max,
      actor,
      draft.headers && this.headersWrite(organizationId, name, { replace: draft.headers }),
    );
    if (outcome === 'name conflict') throw Errors.nameConflict();
    if (outcome === 'limit reached') throw Errors.limitReached(this.max);
    return { name, ...toWebhookBody(stored), secret };
  }

  /** Legacy create-or-update: replaces the URLs, keeps the secret, answers it either way. */
  async replace(organizationId: number, actor: Actor, name: string, draft: WebhookDraft): Promise<ReplacedWebhookDto> {
    const { taken, count } = await this.webhooks.countWithName(organizationId, name);
    if (!taken && count >= this.max) throw Errors.limitReached(this.max);
    await this.requireResolvable(urlsOf(draft));

    const stored = storedOf(draft);
    const binding = signingSecretBinding(organizationId, name);
    const sealed = this.secrets.seal(newSigningSecret(), binding);
    const headers = draft.headers && this.headersWrite(organizationId, name, { replace: draft.headers });
    const replaced = await this.webhooks.replace(organizationId, name, columnsOfStored(stored), sealed, this.max, actor, headers);
    if (replaced === 'limit reached') throw Errors.limitReached(this.max);
    return { ...toWebhookBody(replaced.webhook), secret: this.secrets.open(replaced.secret, binding) };
  }

  async update(organizationId: number, actor: Actor, name: string, patch: WebhookPatch): Promise<NamedWebhookDto> {
    if (!(await this.webhooks.findByName(organizationId, name))) throw Errors.notFound();
    await this.requireResolvable(urlsOf(patch));

    const headers = patch.headers === undefined ? undefined : this.headersWrite(organizationId, name, { merge: patch.headers });
    const updated = await this.webhooks.patch(organizationId, name, columnsOfPatch(patch), actor, headers);
    if (!updated) throw Errors.notFound();
    return { name, ...toWebhookBody(updated) };
  }

  /**
   * Secret rotation (docs/api.md 10.7): a new secret, shown this once; the current one signs
   * beside it until `graceSeconds` have passed (0: dropped at once, for a leaked secret). Only
   * one previous secret is kept. Under the source lock, so concurrent rotations leave exactly
   * one current and one previous secret.
   */
  async rotateSecret(organizationId: number, actor: Actor, name: string, graceSeconds: number): Promise<RotatedSecretDto> {
    const secret = newSigningSecret();
    const previousExpiresAt = graceSeconds > 0 ? new Date(Date.now() + graceSeconds * 1000) : null;
    const rotated = await this.webhooks.rotateSecret(
      organizationId,
      name,
      previousExpiresAt,
      (current) => ({
        current: this.secrets.seal(secret, signingSecretBinding(organizationId, name)),
        previous:
          previousExpiresAt &&
          this.secrets.seal(
            this.secrets.open(current, signingSecretBinding(organizationId, name)),
            signingSecretBinding(organizationId, name, 'previous'),
          ),
      }),
      actor,
    );
    if (!rotated) throw Errors.notFound();
    return { secret, previousExpiresAt: previousExpiresAt?.toISOString() ?? null };
  }

  async remove(organizationId: number, actor: Actor, name: string): Promise<void> {
    if (!(await this.webhooks.delete(organizationId, name, actor))) throw Errors.notFound();
  }

  /** Legacy delete: clients retry deletes, so an absent webhook is not an error. */
  async removeIfExists(organizationId: number, actor: Actor, name: string): Promise<void> {
    await this.webhooks.delete(organizationId, name, actor);
  }

  /**
   * docs/api.md 10.15: the headers a write leaves, from the stored ones, sealed to the webhook;
   * 400 when they break the limits of a webhook's whole set (a patch can add to what is stored).
   * A replace that cannot open the stored ones (a key gone) counts as a change; a merge needs them.
   */
  private headersWrite(organizationId: number, name: string, change: HeadersChange): HeadersWrite {
    const binding = customHeadersBinding(organizationId, name);
    const open = (stored: SealedSecret): HeaderList => JSON.parse(this.secrets.open(stored, binding)) as HeaderList;
    return (stored) => {
      let current: HeaderList | undefined = [];
      if (stored !== null && 'replace' in change) current = tryOpen(() => open(stored));
      else if (stored !== null) current = open(stored);
      const next = 'replace' in change ? change.replace : change.merge === null ? [] : mergeHeaders(current!, change.merge);
      const problems = headerLimitProblems(next);
      if (problems.length > 0) throw Errors.badRequest(problems.map((problem) => `headers: ${problem}`));
      return {
        columns: headerColumnsOf(next, next.length === 0 ? null : this.secrets.seal(JSON.stringify(next), binding)),
        changed: current === undefined || JSON.stringify(current) !== JSON.stringify(next),
      };
    };
  }

  private async requireResolvable(urls: [UrlField, CheckedUrl][]): Promise<void> {
    const named: NamedUrl[] = urls.flatMap(([field, { href, hostname }]) =>
      hostname === undefined ? [] : [{ field, hostname, port: portOf(href) }],
    );
    if (named.length === 0) return;
    const verdict = await this.resolution.check(named);
    if (verdict.kind === 'invalid') throw Errors.invalidUrl(verdict.messages);
    if (verdict.kind === 'unavailable') throw Errors.dnsUnavailable();
  }
}

function tryOpen<T>(open: () => T): T | undefined {
  try {
    return open();
  } catch {
    return undefined;
  }
}
