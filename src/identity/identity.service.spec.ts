import { describe, expect, it, vi } from 'vitest';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import { unitOfWork } from '../../test/support/unit/unit-of-work';
import { hashToken } from '../crypto/opaque-token';
import type { IdentityRepository } from './identity.repository';
import { IdentityService, MAX_PLATFORM_KEY_ORGANIZATIONS } from './identity.service';
import type { OperatorAuditRepository } from './operator-audit.repository';
import type { NewPlatformKey, PlatformKeyRef } from './platform-key.model';
import type { PlatformKeysRepository } from './platform-keys.repository';
import type { Transaction } from '../database/unit-of-work';

// The operator's rules for platform keys (docs/api.md 8), before anything is stored; what the
// repository stores is proven against both databases (test/auth/platform-keys.e2e-spec.ts).

const DAY_MS = 86_400_000;

/** `create`: the keys inserted; `lockKey`: the keys looked up to revoke (none exists). */
function setUp(missingOrganizations: number[] = []) {
  const lockOrganizations = vi.fn(async (_tx: Transaction, organizations: readonly number[]) =>
    organizations.filter((id) => missingOrganizations.includes(id)),
  );
  const insert = vi.fn(async (_tx: Transaction, _key: NewPlatformKey) => 12);
  const lockKey = vi.fn(async (_tx: Transaction, _ref: PlatformKeyRef) => undefined);
  const record = vi.fn(async () => undefined);
  const service = new IdentityService(
    {} as IdentityRepository,
    { lockOrganizations, insert, lockKey } as unknown as PlatformKeysRepository,
    { record } as unknown as OperatorAuditRepository,
    unitOfWork(),
  );
  const create = { calls: () => insert.mock.calls.map(([, key]) => key) };
  return { service, create, insert, lockKey };
}

describe('IdentityService.createPlatformKey', () => {
  it('issues a key for every organization that never expires, storing only its hash', async () => {
    const { service, create } = setUp();
    const issued = await service.createPlatformKey('platform');
    expect(issued).toEqual({ id: 12, token: expect.any(String), organizations: null, expiresAt: null });
    expect(create.calls()).toEqual([
      expect.objectContaining({ name: 'platform', tokenHash: hashToken(issued.token), organizations: null }),
    ]);
    expect(JSON.stringify(create.calls())).not.toContain(issued.token);
  });

  it('keeps each organization once, in order', async () => {
    const { service } = setUp();
    expect((await service.createPlatformKey('scoped', { organizations: [9, 3, 9, 5] })).organizations).toEqual([3, 5, 9]);
  });

  it.each([
    ['no organization', []],
    [
      `more than ${MAX_PLATFORM_KEY_ORGANIZATIONS} organizations`,
      Array.from({ length: MAX_PLATFORM_KEY_ORGANIZATIONS + 1 }, (_, i) => i + 1),
    ],
  ])('refuses %s as invalid (400), storing nothing', async (_, organizations) => {
    const { service, create } = setUp();
    expect(await rejectionOf(service.createPlatformKey('scoped', { organizations }))).toMatchObject({
      status: 400,
      body: { code: 'invalid' },
    });
    expect(create.calls()).toEqual([]);
  });

  it('expires a key whole days after its creation, to the second, as stored and as printed', async () => {
    const { service, create } = setUp();
    const { expiresAt } = await service.createPlatformKey('expiring', { expiresInDays: 30 });
    const [{ createdAt, expiresAt: stored }] = create.calls();
    expect(expiresAt!.getTime() % 1000).toBe(0);
    expect(expiresAt!.getTime() - createdAt.getTime()).toBeGreaterThan(30 * DAY_MS - 1000);
    expect(expiresAt!.getTime() - createdAt.getTime()).toBeLessThanOrEqual(30 * DAY_MS);
    expect(stored).toEqual(expiresAt);
  });

  it('answers organizations that do not exist 404 not found, naming them, and stores nothing', async () => {
    const { service, create } = setUp([4, 6]);
    expect(await rejectionOf(service.createPlatformKey('scoped', { organizations: [4, 5, 6] }))).toEqual({
      status: 404,
      body: { code: 'not found', message: ['no organization 4, 6'] },
    });
    expect(create.calls()).toEqual([]);
  });
});

describe('IdentityService.revokePlatformKey', () => {
  it('looks a token up by its hash, and answers an unknown one 404 without echoing it', async () => {
    const { service, lockKey } = setUp();
    const refused = await rejectionOf(service.revokePlatformKey('secret-token'));
    expect(refused).toEqual({ status: 404, body: { code: 'not found', message: ['no such platform key'] } });
    expect(lockKey.mock.calls.map(([, ref]) => ref)).toEqual([{ tokenHash: hashToken('secret-token') }]);
  });

  it('answers an unknown id 404 not found, naming it', async () => {
    const { service } = setUp();
    expect(await rejectionOf(service.revokePlatformKey({ id: 77 }))).toEqual({
      status: 404,
      body: { code: 'not found', message: ['no platform key 77'] },
    });
  });
});
