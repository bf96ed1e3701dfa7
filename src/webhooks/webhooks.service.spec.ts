import { describe, expect, it } from 'vitest';
import { unitOfWork } from '../../test/support/unit/unit-of-work';
import { actorOf } from '../common/actor';
import type { AuditTrail } from '../audit/audit-trail';
import type { AppConfig } from '../config/app-config';
import type { SealedSecret, SecretBox } from '../crypto/secret-box';
import type { UrlResolution } from '../url-safety/url-resolution';
import type { WebhookDraft } from './webhook.model';
import type { LockedWebhook, WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

// The order of each write's statements (docs/api.md 5): the organization's source row locked
// first, the audit entry in the write's own transaction. What the statements do is proven
// against both databases (test/webhooks/); here, the unit of work the service builds of them.

const ORG = 3;
const SEALED: SealedSecret = { ciphertext: 'c', keyId: 'k' };
const STORED: LockedWebhook = { id: 9, secret: SEALED, headers: null, columns: { url: 'https://a.example/' } };
const DRAFT: WebhookDraft = { url: { href: 'https://b.example/' }, events: {} };

/** Each repository and audit call, by name, with the transaction it ran in (null: none); `exists`: the webhook is there. */
function setUp({ exists = true } = {}) {
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
      return { url: 'https://b.example/', events: {} };
    },
    lockSource: inTx('lockSource', 1),
    findLocked: inTx('findLocked', exists ? STORED : undefined),
    insert: inTx('insert', undefined),
    update: inTx('update', undefined),
    setSecrets: inTx('setSecrets', undefined),
    delete: inTx('delete', undefined),
    deleteSourceIfEmpty: inTx('deleteSourceIfEmpty', undefined),
  };
  const actors: unknown[] = [];
  const audit = {
    record: async (tx: { actor?: unknown }) => {
      calls.push(['audit', tx]);
      actors.push(tx.actor);
    },
  };
  const secrets = { seal: () => SEALED, open: () => 'secret' };
  const service = new WebhooksService(
    webhooks as unknown as WebhooksRepository,
    unitOfWork(),
    audit as unknown as AuditTrail,
    {} as UrlResolution,
    secrets as unknown as SecretBox,
    { webhooksPerOrgMax: 10 } as AppConfig,
  );
  /** The calls made in the write's transaction, in order; they all ran in that one. */
  const inTransaction = () => {
    const made = calls.filter(([, tx]) => tx !== null);
    expect(new Set(made.map(([, tx]) => tx)).size).toBe(1);
    return made.map(([name]) => name);
  };
  return { service, inTransaction, audited: () => actors };
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
