import { describe, expect, it } from 'vitest';
import { unitOfWork } from '../../test/support/unit/unit-of-work';
import { actorOf } from '../common/actor';
import type { AuditTrail } from '../audit/audit-trail';
import type { AppConfig } from '../config/app-config';
import type { SealedSecret, SecretBox } from '../crypto/secret-box';
import type { UrlResolution } from '../url-safety/url-resolution';
import type { AuthDraft, StoredWebhook, WebhookDraft } from './webhook.model';
import type { LockedWebhook, WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

// The order of each write's statements (docs/api.md 5): the organization's source row locked
// first, the audit entry in the write's own transaction. What the statements do is proven
// against both databases (test/webhooks/); here, the unit of work the service builds of them.

const ORG = 3;
const SEALED: SealedSecret = { ciphertext: 'c', keyId: 'k' };
const STORED: LockedWebhook = {
  id: 9,
  secret: SEALED,
  headers: null,
  auth: null,
  columns: { url: 'https://a.example/' },
  stored: { url: 'https://a.example/', events: {} },
};
const DRAFT: WebhookDraft = { url: { href: 'https://b.example/' }, events: {} };

/** An oauth2 auth as a write gives it (docs/api.md 10.16). */
const OAUTH: AuthDraft = {
  view: { type: 'oauth2', tokenUrl: 'https://auth.example/token', clientId: 'id' },
  settings: { type: 'oauth2', tokenUrl: 'https://auth.example/token', clientId: 'id', clientSecret: 's3cret' },
};

/**
 * Each repository and audit call, by name, with the transaction it ran in (null: none); `exists`:
 * the webhook is there, as `stored` (what reads show) with its settings sealed as `sealedAuth`
 * (opening to `opened`).
 */
function setUp({
  exists = true,
  stored = STORED.stored,
  opened = 'secret',
}: { exists?: boolean; stored?: StoredWebhook; opened?: string } = {}) {
  const calls: [string, unknown][] = [];
  const inTx = (name: string, answer: unknown) => async (tx: unknown) => {
    calls.push([name, tx]);
    return answer;
  };
  const webhooks = {
    countWithName: async (_org: number, _name: string, tx?: unknown) => {
      calls.push(['countWithName', tx ?? null]);
      return { taken: false, count: 0 };
    },
    findByName: async (_org: number, _name: string, tx?: unknown) => {
      calls.push(['findByName', tx ?? null]);
      return stored;
    },
    lockSource: inTx('lockSource', 1),
    findLocked: inTx('findLocked', exists ? { ...STORED, auth: stored.auth && SEALED, stored } : undefined),
    insert: inTx('insert', undefined),
    update: inTx('update', undefined),
    setSecrets: inTx('setSecrets', undefined),
    delete: inTx('delete', undefined),
    deleteSourceIfEmpty: inTx('deleteSourceIfEmpty', undefined),
  };
  const actors: unknown[] = [];
  const fields: unknown[] = [];
  const audit = {
    record: async (tx: { actor?: unknown }, entry: { fields: unknown }) => {
      calls.push(['audit', tx]);
      actors.push(tx.actor);
      fields.push(entry.fields);
    },
  };
  const secrets = { seal: () => SEALED, open: () => opened };
  const resolution = { check: async () => ({ kind: 'ok' }) };
  const service = new WebhooksService(
    webhooks as unknown as WebhooksRepository,
    unitOfWork(),
    audit as unknown as AuditTrail,
    resolution as unknown as UrlResolution,
    secrets as unknown as SecretBox,
    { webhooksPerOrgMax: 10 } as AppConfig,
  );
  /** The calls made in the write's transaction, in order; they all ran in that one. */
  const inTransaction = () => {
    const made = calls.filter(([, tx]) => tx !== null);
    expect(new Set(made.map(([, tx]) => tx)).size).toBe(1);
    return made.map(([name]) => name);
  };
  return { service, inTransaction, audited: () => actors, fields: () => fields, calls: () => calls.map(([name]) => name) };
}

const USER = actorOf({ userId: 7 });

describe('WebhooksService: each write is one unit of work', () => {
  it('creates under the source lock, checks the name and the cap again, and records the audit entry', async () => {
    const { service, inTransaction } = setUp();
    await service.create(ORG, USER, 'hook', DRAFT);
    expect(inTransaction()).toEqual(['lockSource', 'countWithName', 'insert', 'audit']);
  });

  it('replaces an existing webhook under the source lock, answering what it stores now', async () => {
    const { service, inTransaction } = setUp();
    await service.replace(ORG, USER, 'hook', DRAFT);
    expect(inTransaction()).toEqual(['lockSource', 'findLocked', 'update', 'audit', 'findByName']);
  });

  it('creates in a legacy create-or-update when the name is free, after the cap is checked again', async () => {
    const { service, inTransaction } = setUp({ exists: false });
    await service.replace(ORG, USER, 'hook', DRAFT);
    expect(inTransaction()).toEqual(['lockSource', 'findLocked', 'countWithName', 'insert', 'audit', 'findByName']);
  });

  it('patches under the source lock and answers the webhook it updated', async () => {
    const { service, inTransaction } = setUp();
    await service.update(ORG, USER, 'hook', { events: {} });
    expect(inTransaction()).toEqual(['lockSource', 'findLocked', 'update', 'audit', 'findByName']);
  });

  it('rotates the secret under the source lock', async () => {
    const { service, inTransaction } = setUp();
    await service.rotateSecret(ORG, USER, 'hook', 0);
    expect(inTransaction()).toEqual(['lockSource', 'findLocked', 'setSecrets', 'audit']);
  });

  it('deletes under the source lock, the source row going with the last webhook after the audit entry', async () => {
    const { service, inTransaction } = setUp();
    await service.remove(ORG, USER, 'hook');
    expect(inTransaction()).toEqual(['lockSource', 'findLocked', 'delete', 'audit', 'deleteSourceIfEmpty']);
  });

  it('writes nothing and records nothing when there is no such webhook', async () => {
    const { service, inTransaction } = setUp({ exists: false });
    await service.removeIfExists(ORG, USER, 'hook');
    expect(inTransaction()).toEqual(['lockSource', 'findLocked']);
  });

  it("opens the write's unit of work as the caller, whose the audit entry is", async () => {
    const { service, audited } = setUp();
    await service.update(ORG, USER, 'hook', { events: {} });
    expect(audited()).toEqual([USER]);
  });
});

describe("WebhooksService: a webhook's auth (docs/api.md 10.16)", () => {
  const BAD_REQUEST = {
    status: 400,
    details: ['headers: Authorization: not allowed beside auth of type oauth2 (the service sends the access token in it)'],
  };

  it('refuses an authorization header beside oauth2 given together, before any DNS work or write', async () => {
    const { service, calls } = setUp();
    const draft: WebhookDraft = { ...DRAFT, headers: [['Authorization', 'Bearer x']], auth: OAUTH };
    await expect(service.create(ORG, USER, 'hook', draft)).rejects.toMatchObject(BAD_REQUEST);
    expect(calls()).toEqual(['countWithName']);
  });

  it('refuses a patch that adds an authorization header beside a stored oauth2, and one that sets oauth2 beside a stored header', async () => {
    const withAuth = setUp({ stored: { ...STORED.stored, auth: OAUTH.view } });
    await expect(withAuth.service.update(ORG, USER, 'hook', { events: {}, headers: { Authorization: 'x' } })).rejects.toMatchObject(
      BAD_REQUEST,
    );
    const withHeader = setUp({ stored: { ...STORED.stored, headerNames: ['Authorization'] } });
    await expect(withHeader.service.update(ORG, USER, 'hook', { events: {}, auth: OAUTH })).rejects.toMatchObject(BAD_REQUEST);
  });

  it('takes oauth2 in place of a stored authorization header that the same patch removes', async () => {
    const { service, fields } = setUp({ stored: { ...STORED.stored, headerNames: ['Authorization'] } });
    await service.update(ORG, USER, 'hook', { events: {}, headers: { authorization: null }, auth: OAUTH });
    expect(fields()).toEqual([['auth']]);
  });

  it('names auth in the audit entry when it is set or changed, not when the same settings are given again', async () => {
    const created = setUp();
    await created.service.create(ORG, USER, 'hook', { ...DRAFT, auth: OAUTH });
    expect(created.fields()).toEqual([['url', 'auth']]);
    const same = setUp({ stored: { ...STORED.stored, auth: OAUTH.view }, opened: JSON.stringify(OAUTH.settings) });
    await same.service.update(ORG, USER, 'hook', { events: {}, auth: OAUTH });
    await same.service.update(ORG, USER, 'hook', { events: {}, auth: null });
    expect(same.fields()).toEqual([[], ['auth']]);
  });
});
