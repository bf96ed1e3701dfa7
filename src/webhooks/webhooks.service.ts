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
import { HeaderList, headerLimitProblems, headerListOf, MASKED_VALUE, mergeHeaders } from './custom-headers';
import { changedFields, setFields } from './audit-fields';
import { credentialOriginProblems, newOrigins } from './credential-origins';
import { authorizationProblems } from './receiver-auth';
import {
  authColumnsOf,
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
  AuthDraft,
  CheckedUrl,
  customHeadersBinding,
  newSigningSecret,
  receiverAuthBinding,
  signingSecretBinding,
  StoredWebhook,
  UrlMember,
  WebhookDraft,
  WebhookPatch,
} from './webhook.model';
import { LockedWebhook, WebhooksRepository } from './webhooks.repository';

/** How a write changes the custom headers: replaces them all (create, legacy create-or-update), or merges a patch in (null: removes them all). */
type HeadersChange = { readonly replace: HeaderList } | { readonly merge: Readonly<Record<string, string | null>> | null };

/**
 * What a write changes of the members stored sealed (docs/api.md 10.15, 10.16), each undefined
 * when it keeps them: the custom headers, and the auth (replaced whole; null removes it); and
 * the URLs it gives (hrefs), since one on a new origin asks for both again.
 */
interface SealedChanges {
  readonly headers?: HeadersChange;
  readonly auth?: AuthDraft | null;
  readonly urls: readonly string[];
}

/** The sealed members a write changed, as the audit entry names them (it cannot compare ciphertexts: the write says). */
type SealedField = 'headers' | 'auth';

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
    const changes = sealedChangesOf(draft);
    refuseAuthorizationBeside(undefined, changes);
    await this.requireResolvable(urlsOf(draft));

    const secret = newSigningSecret();
    const stored = storedOf(draft);
    const columns = columnsOfStored(stored);
    const sealed = this.secrets.seal(secret, signingSecretBinding(organizationId, name));
    const outcome = await this.work.run(
      async (tx) => {
        const sourceId = await this.webhooks.lockSource(tx, organizationId, { create: true });
        const now = await this.webhooks.countWithName(organizationId, name, tx);
        if (now.taken) return 'name conflict';
        if (now.count >= this.max) return 'limit reached';
        await this.insertNew(tx, organizationId, sourceId, name, columns, sealed, changes);
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
   * rate limit, event types, headers, an order or an auth only when given) and answers its
   * secret and what is stored now, or creates it with a new secret. Callers racing on one new
   * name are serialized by the source lock, so they all get the secret of the one that created it.
   */
  async replace(organizationId: number, actor: Actor, name: string, draft: WebhookDraft): Promise<ReplacedWebhookDto> {
    const { taken, count } = await this.webhooks.countWithName(organizationId, name);
    if (!taken && count >= this.max) throw Errors.limitReached(this.max);
    const changes = sealedChangesOf(draft);
    refuseAuthorizationBeside(undefined, changes);
    await this.requireResolvable(urlsOf(draft));

    const columns = columnsOfStored(storedOf(draft));
    const binding = signingSecretBinding(organizationId, name);
    const sealed = this.secrets.seal(newSigningSecret(), binding);
    const replaced = await this.work.run(
      async (tx) => {
        const sourceId = await this.webhooks.lockSource(tx, organizationId, { create: true });
        const existing = await this.webhooks.findLocked(tx, sourceId, name);
        if (existing) {
          await this.updateExisting(tx, organizationId, name, existing, columns, changes);
          return { secret: existing.secret, webhook: (await this.webhooks.findByName(organizationId, name, tx))! };
        }
        const now = await this.webhooks.countWithName(organizationId, name, tx);
        if (now.count >= this.max) return 'limit reached';
        await this.insertNew(tx, organizationId, sourceId, name, columns, sealed, changes);
        return { secret: sealed, webhook: (await this.webhooks.findByName(organizationId, name, tx))! };
      },
      { actor },
    );
    if (replaced === 'limit reached') throw Errors.limitReached(this.max);
    return { ...toWebhookBody(replaced.webhook), secret: this.secrets.open(replaced.secret, binding) };
  }

  /**
   * Sets only the members given (the headers merged into the stored ones under the lock, the
   * auth replaced whole). Under the source lock like every write: the webhook that answers is the
   * one that was updated, never one a concurrent delete-and-create put in its place. The audit
   * entry names only the members whose value changed (docs/api.md 10.9).
   */
  async update(organizationId: number, actor: Actor, name: string, patch: WebhookPatch): Promise<NamedWebhookDto> {
    const existing = await this.webhooks.findByName(organizationId, name);
    if (!existing) throw Errors.notFound();
    const sealedChanges: SealedChanges = {
      ...(patch.headers !== undefined && { headers: { merge: patch.headers } }),
      ...(patch.auth !== undefined && { auth: patch.auth }),
      urls: givenHrefs(patch),
    };
    refuseAuthorizationBeside(existing, sealedChanges);
    refuseCredentialsMoved(existing, sealedChanges);
    await this.requireResolvable(urlsOf(patch));

    const changes = columnsOfPatch(patch);
    const updated = await this.work.run(
      async (tx) => {
        const webhook = await this.lockedWebhook(tx, organizationId, name);
        if (webhook === undefined) return undefined;
        await this.updateExisting(tx, organizationId, name, webhook, changes, sealedChanges);
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
    changes: SealedChanges,
  ): Promise<void> {
    const written = this.sealedWrite(organizationId, name, undefined, changes);
    await this.webhooks.insert(tx, sourceId, name, { ...columns, ...written.columns }, sealed);
    await this.audit.record(tx, {
      organizationId,
      action: 'webhook.created',
      webhook: name,
      fields: [...setFields(columns), ...written.changed],
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
    sealedChanges: SealedChanges,
  ): Promise<void> {
    const written = this.sealedWrite(organizationId, name, existing, sealedChanges);
    await this.webhooks.update(tx, existing.id, { ...changes, ...written.columns });
    await this.audit.record(tx, {
      organizationId,
      action: 'webhook.updated',
      webhook: name,
      fields: [...changedFields(existing.columns, changes), ...written.changed],
    });
  }

  /**
   * The sealed members a write leaves, made under the source lock from the stored ones (none for
   * a new webhook): their columns, and those that changed (or were given again for a new origin:
   * the audit names them beside the URL). It refuses (a DomainError) headers that break the limits
   * of a webhook's whole set, an `authorization` header beside oauth2, in the webhook as the write
   * leaves it (a patch can add to what is stored), and credentials not given again for a new origin.
   */
  private sealedWrite(
    organizationId: number,
    name: string,
    existing: LockedWebhook | undefined,
    changes: SealedChanges,
  ): { columns: WebhookColumns; changed: SealedField[] } {
    refuseAuthorizationBeside(existing?.stored, changes);
    const moved = refuseCredentialsMoved(existing?.stored, changes);
    const headers = changes.headers && this.headersWrite(organizationId, name, changes.headers, existing?.headers ?? null);
    const auth = changes.auth !== undefined ? this.authWrite(organizationId, name, changes.auth, existing?.auth ?? null) : undefined;
    return {
      columns: { ...headers?.columns, ...auth?.columns },
      changed: [
        ...(headers?.changed || (moved && headers) ? ['headers' as const] : []),
        ...(auth?.changed || (moved && auth) ? ['auth' as const] : []),
      ],
    };
  }

  /**
   * docs/api.md 10.15: the headers a write leaves, from the stored ones, sealed to the webhook;
   * 400 when they break the limits of a webhook's whole set (a patch can add to what is stored).
   * A replace that cannot open the stored ones (a key gone) counts as a change; a merge needs them.
   */
  private headersWrite(organizationId: number, name: string, change: HeadersChange, stored: SealedSecret | null) {
    const binding = customHeadersBinding(organizationId, name);
    const open = (sealed: SealedSecret): HeaderList => this.secrets.openJson(sealed, binding, 'the stored custom headers', headerListOf);
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
  }

  /**
   * docs/api.md 10.16: the auth a write leaves (null: none), its settings sealed to the webhook;
   * changed unless the stored settings open to the same (settings that no longer open count as changed).
   */
  private authWrite(organizationId: number, name: string, auth: AuthDraft | null, stored: SealedSecret | null) {
    const binding = receiverAuthBinding(organizationId, name);
    const next = auth === null ? null : JSON.stringify(auth.settings);
    const current = stored === null ? null : tryOpen(() => this.secrets.open(stored, binding));
    return { columns: authColumnsOf(auth, next === null ? null : this.secrets.seal(next, binding)), changed: current !== next };
  }

  private async requireResolvable(urls: [UrlMember, CheckedUrl][]): Promise<void> {
    const named: NamedUrl[] = urls.flatMap(([field, { href, hostname }]) =>
      hostname === undefined ? [] : [{ field, hostname, port: portOf(href) }],
    );
    if (named.length === 0) return;
    const verdict = await this.resolution.check(named);
    if (verdict.kind === 'invalid') throw Errors.invalidUrl(verdict.messages);
    if (verdict.kind === 'unavailable') throw Errors.dnsUnavailable();
  }
}

/** What a create or a legacy create-or-update changes of the sealed members: those it gives. */
const sealedChangesOf = (draft: WebhookDraft): SealedChanges => ({
  ...(draft.headers !== undefined && { headers: { replace: draft.headers } }),
  ...(draft.auth !== undefined && { auth: draft.auth }),
  urls: givenHrefs(draft),
});

/** The receiver URLs a write gives (not an auth's token URL: the client secret goes there, and stays with the auth). */
const givenHrefs = ({ url, events }: WebhookDraft | WebhookPatch): string[] => [
  ...(url ? [url.href] : []),
  ...Object.values(events).flatMap((checked) => (checked ? [checked.href] : [])),
];

/**
 * docs/api.md 10.15: 400 when the write gives a URL an origin none of the webhook's URLs had and
 * does not give again the headers or the auth it carries (`stored` undefined: a new webhook, which
 * carries none); else whether it gave a new origin (the audit then names what it gave again).
 * Checked before any DNS work where the webhook was read, and again under the source lock.
 */
function refuseCredentialsMoved(stored: StoredWebhook | undefined, { headers, auth, urls }: SealedChanges): boolean {
  if (stored === undefined || newOrigins(stored, urls).length === 0) return false;
  const problems = credentialOriginProblems(stored, urls, { headers, auth: auth !== undefined });
  if (problems.length > 0) throw Errors.badRequest(problems);
  return true;
}

/**
 * docs/api.md 10.15, 10.16: 400 when the webhook as `changes` leave it (from `stored`, as reads
 * show it; undefined: what the request alone says) would send a custom `authorization` header
 * beside oauth2. Checked before any DNS work, and again under the source lock.
 */
function refuseAuthorizationBeside(stored: StoredWebhook | undefined, { headers, auth }: SealedChanges): void {
  const names = headerNamesAfter(stored?.headerNames ?? [], headers);
  const problems = authorizationProblems(names, auth === undefined ? stored?.auth?.type : auth?.settings.type);
  if (problems.length > 0) throw Errors.badRequest(problems);
}

/** The names of the headers a change leaves (undefined: keeps) of the stored ones, whose values a merge of names needs not. */
function headerNamesAfter(stored: readonly string[], change: HeadersChange | undefined): readonly string[] {
  if (change === undefined) return stored;
  if ('replace' in change) return change.replace.map(([name]) => name);
  if (change.merge === null) return [];
  return mergeHeaders(
    stored.map((name) => [name, MASKED_VALUE] as const),
    change.merge,
  ).map(([name]) => name);
}

function tryOpen<T>(open: () => T): T | undefined {
  try {
    return open();
  } catch {
    return undefined;
  }
}
