import type { Actor } from '../common/actor';
import { Injectable } from '@nestjs/common';
import { AuditTrail } from '../audit/audit-trail';
import { Errors } from '../common/domain-error';
import { AppConfig } from '../config/app-config';
import { SealedSecret, SecretBox } from '../crypto/secret-box';
import { type Transaction, UnitOfWork } from '../database/unit-of-work';
import { NamedUrl, UrlResolution } from '../url-safety/url-resolution';
import { portOf } from '../url-safety/url-rules';
import type { CreatedWebhookDto, NamedWebhookDto, ReplacedWebhookDto, RotatedSecretDto, WebhookDto } from './dto/webhook-responses.dto';
import { decodeHeaders, HeaderList, headerLimitProblems, mergeHeaders } from './custom-headers';
import { changedFields, setFields, withHeaders } from './audit-fields';
import {
  columnsOfPatch,
  columnsOfStored,
  headerColumnsOf,
  storedOf,
  toWebhookBody,
  urlsOf,
  WebhookColumns,
  webhookListJson,
} from './webhook.mapper';
import {
  CheckedUrl,
  customHeadersBinding,
  newSigningSecret,
  signingSecretBinding,
  UrlField,
  WebhookDraft,
  WebhookPatch,
} from './webhook.model';
import { LockedWebhook, WebhooksRepository } from './webhooks.repository';

/** How a write changes the custom headers: replaces them all (create, legacy create-or-update), or merges a patch in (null: removes them all). */
type HeadersChange = { readonly replace: HeaderList } | { readonly merge: Readonly<Record<string, string | null>> | null };

/**
 * A write's custom headers (docs/api.md 10.15), made under the source lock from the stored ones
 * (sealed; null: none): the columns to write, and whether the headers changed (for the audit
 * entry, which cannot compare ciphertexts). It may refuse the result (a DomainError).
 */
type HeadersWrite = (stored: SealedSecret | null) => { columns: WebhookColumns; changed: boolean };

/**
 * The webhook operations of docs/api.md 5.3 for one organization. Input arrives validated by
 * the pipes (name, shape, static URL rules); here come the checks that need the database
 * (which run before any DNS work), then name resolution, then the atomic write: one unit of
 * work that locks the organization's source row first, enforces the name and the cap again,
 * writes, and records the audit entry (by the request's actor) in the same transaction.
 */
@Injectable()
export class WebhooksService {
  private readonly max: number;

  constructor(
    private readonly webhooks: WebhooksRepository,
    private readonly work: UnitOfWork,
    private readonly audit: AuditTrail,
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
    const columns = columnsOfStored(stored);
    const sealed = this.secrets.seal(secret, signingSecretBinding(organizationId, name));
    const headers = draft.headers && this.headersWrite(organizationId, name, { replace: draft.headers });
    const outcome = await this.work.run(
      async (tx) => {
        const sourceId = await this.webhooks.lockSource(tx, organizationId, { create: true });
        const now = await this.webhooks.countWithName(organizationId, name, tx);
        if (now.taken) return 'name conflict';
        if (now.count >= this.max) return 'limit reached';
        await this.insertNew(tx, organizationId, sourceId, name, columns, sealed, headers);
        return 'created';
      },
      { actor },
    );
    if (outcome === 'name conflict') throw Errors.nameConflict();
    if (outcome === 'limit reached') throw Errors.limitReached(this.max);
    return { name, ...toWebhookBody(stored), secret };
  }

  /**
   * Legacy create-or-update: replaces every URL of an existing webhook (unset ones cleared; a
   * rate limit, event types or headers only when given) and answers its secret and what is
   * stored now, or creates it with a new secret. Callers racing on one new name are serialized
   * by the source lock, so they all get the secret of the one that created it.
   */
  async replace(organizationId: number, actor: Actor, name: string, draft: WebhookDraft): Promise<ReplacedWebhookDto> {
    const { taken, count } = await this.webhooks.countWithName(organizationId, name);
    if (!taken && count >= this.max) throw Errors.limitReached(this.max);
    await this.requireResolvable(urlsOf(draft));

    const columns = columnsOfStored(storedOf(draft));
    const binding = signingSecretBinding(organizationId, name);
    const sealed = this.secrets.seal(newSigningSecret(), binding);
    const headers = draft.headers && this.headersWrite(organizationId, name, { replace: draft.headers });
    const replaced = await this.work.run(
      async (tx) => {
        const sourceId = await this.webhooks.lockSource(tx, organizationId, { create: true });
        const existing = await this.webhooks.findLocked(tx, sourceId, name);
        if (existing) {
          await this.updateExisting(tx, organizationId, name, existing, columns, headers);
          return { secret: existing.secret, webhook: (await this.webhooks.findByName(organizationId, name, tx))! };
        }
        const now = await this.webhooks.countWithName(organizationId, name, tx);
        if (now.count >= this.max) return 'limit reached';
        await this.insertNew(tx, organizationId, sourceId, name, columns, sealed, headers);
        return { secret: sealed, webhook: (await this.webhooks.findByName(organizationId, name, tx))! };
      },
      { actor },
    );
    if (replaced === 'limit reached') throw Errors.limitReached(this.max);
    return { ...toWebhookBody(replaced.webhook), secret: this.secrets.open(replaced.secret, binding) };
  }

  /**
   * Sets only the members given (the headers merged into the stored ones under the lock). Under
   * the source lock like every write: the webhook that answers is the one that was updated, never
   * one a concurrent delete-and-create put in its place. The audit entry names only the members
   * whose value changed (docs/api.md 10.9).
   */
  async update(organizationId: number, actor: Actor, name: string, patch: WebhookPatch): Promise<NamedWebhookDto> {
    if (!(await this.webhooks.findByName(organizationId, name))) throw Errors.notFound();
    await this.requireResolvable(urlsOf(patch));

    const changes = columnsOfPatch(patch);
    const headers = patch.headers === undefined ? undefined : this.headersWrite(organizationId, name, { merge: patch.headers });
    const updated = await this.work.run(
      async (tx) => {
        const webhook = await this.lockedWebhook(tx, organizationId, name);
        if (webhook === undefined) return undefined;
        await this.updateExisting(tx, organizationId, name, webhook, changes, headers);
        return this.webhooks.findByName(organizationId, name, tx);
      },
      { actor },
    );
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
    const current = this.secrets.seal(secret, signingSecretBinding(organizationId, name));
    const rotated = await this.work.run(
      async (tx) => {
        const webhook = await this.lockedWebhook(tx, organizationId, name);
        if (webhook === undefined) return false;
        const previous =
          previousExpiresAt &&
          this.secrets.seal(
            this.secrets.open(webhook.secret, signingSecretBinding(organizationId, name)),
            signingSecretBinding(organizationId, name, 'previous'),
          );
        await this.webhooks.setSecrets(tx, webhook.id, current, previous, previousExpiresAt);
        await this.audit.record(tx, { organizationId, action: 'webhook.secret_rotated', webhook: name, fields: [] });
        return true;
      },
      { actor },
    );
    if (!rotated) throw Errors.notFound();
    return { secret, previousExpiresAt: previousExpiresAt?.toISOString() ?? null };
  }

  async remove(organizationId: number, actor: Actor, name: string): Promise<void> {
    if (!(await this.delete(organizationId, actor, name))) throw Errors.notFound();
  }

  /** Legacy delete: clients retry deletes, so an absent webhook is not an error. */
  async removeIfExists(organizationId: number, actor: Actor, name: string): Promise<void> {
    await this.delete(organizationId, actor, name);
  }

  /**
   * False when there was no such webhook. What other features registered (WebhookRemovals) is
   * done in the same transaction; the source row goes with the last webhook.
   */
  private delete(organizationId: number, actor: Actor, name: string): Promise<boolean> {
    return this.work.run(
      async (tx) => {
        const sourceId = await this.webhooks.lockSource(tx, organizationId, { create: false });
        if (sourceId === undefined) return false;
        const webhook = await this.webhooks.findLocked(tx, sourceId, name);
        if (webhook === undefined) return false;
        await this.webhooks.delete(tx, webhook.id);
        await this.audit.record(tx, { organizationId, action: 'webhook.deleted', webhook: name, fields: [] });
        await this.webhooks.deleteSourceIfEmpty(tx, sourceId);
        return true;
      },
      { actor },
    );
  }

  /** The organization's webhook named `name`, its source locked first; undefined when there is none. */
  private async lockedWebhook(tx: Transaction, organizationId: number, name: string): Promise<LockedWebhook | undefined> {
    const sourceId = await this.webhooks.lockSource(tx, organizationId, { create: false });
    return sourceId === undefined ? undefined : this.webhooks.findLocked(tx, sourceId, name);
  }

  /** A new webhook's row and its audit entry, in the creating transaction (create, and a legacy create-or-update that creates). */
  private async insertNew(
    tx: Transaction,
    organizationId: number,
    sourceId: number,
    name: string,
    columns: WebhookColumns,
    sealed: SealedSecret,
    headers: HeadersWrite | undefined,
  ): Promise<void> {
    const written = headers?.(null);
    await this.webhooks.insert(tx, sourceId, name, { ...columns, ...written?.columns }, sealed);
    await this.audit.record(tx, {
      organizationId,
      action: 'webhook.created',
      webhook: name,
      fields: withHeaders(setFields(columns), written?.changed),
    });
  }

  /**
   * An existing webhook's new columns and its audit entry naming only what changed, in the
   * transaction that holds its source lock (PATCH, and a legacy create-or-update that updates).
   */
  private async updateExisting(
    tx: Transaction,
    organizationId: number,
    name: string,
    existing: LockedWebhook,
    changes: WebhookColumns,
    headers: HeadersWrite | undefined,
  ): Promise<void> {
    const written = headers?.(existing.headers);
    await this.webhooks.update(tx, existing.id, { ...changes, ...written?.columns });
    await this.audit.record(tx, {
      organizationId,
      action: 'webhook.updated',
      webhook: name,
      fields: withHeaders(changedFields(existing.columns, changes), written?.changed),
    });
  }

  /**
   * docs/api.md 10.15: the headers a write leaves, from the stored ones, sealed to the webhook;
   * 400 when they break the limits of a webhook's whole set (a patch can add to what is stored).
   * A replace that cannot open the stored ones (a key gone) counts as a change; a merge needs them.
   */
  private headersWrite(organizationId: number, name: string, change: HeadersChange): HeadersWrite {
    const binding = customHeadersBinding(organizationId, name);
    const open = (stored: SealedSecret): HeaderList => decodeHeaders(this.secrets.open(stored, binding));
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
