import { describe, expect, it, vi } from 'vitest';
import { rejectionOf } from '../../test/support/unit/domain-errors';
import { hashToken } from '../crypto/opaque-token';
import type { IdentityRepository } from './identity.repository';
import { IdentityService, MAX_PLATFORM_KEY_ORGANIZATIONS } from './identity.service';
import type { OperatorAuditRepository } from './operator-audit.repository';
import type { NewPlatformKey } from './platform-key.model';
import type { PlatformKeysRepository } from './platform-keys.repository';

// The operator's rules for platform keys (docs/api.md 8), before anything is stored; what the
// repository stores is proven against both databases (test/auth/platform-keys.e2e-spec.ts).

const DAY_MS = 86_400_000;

function setUp(missingOrganizations: number[] = []) {
  const create = vi.fn(async (key: NewPlatformKey) => (missingOrganizations.length > 0 ? { missingOrganizations } : { id: 12, key }));
  const revoke = vi.fn(async () => false);
  const service = new IdentityService(
    {} as IdentityRepository,
    { create, revoke } as unknown as PlatformKeysRepository,
    {} as OperatorAuditRepository,
  );
  return { service, create, revoke };
}

describe('IdentityService.createPlatformKey', () => {
  it('issues a key for every organization that never expires, storing only its hash', async () => {
    const { service, create } = setUp();
    const issued = await service.createPlatformKey('platform');
    expect(issued).toEqual({ id: 12, token: expect.any(String), organizations: null, expiresAt: null });
    expect(create).toHaveBeenCalledWith(
      expect.objectContaining({ name: 'platform', tokenHash: hashToken(issued.token), organizations: null }),
    );
    expect(JSON.stringify(create.mock.calls)).not.toContain(issued.token);
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
    expect(create).not.toHaveBeenCalled();
  });

  it('expires a key whole days after its creation, to the second, as stored and as printed', async () => {
    const { service, create } = setUp();
    const { expiresAt } = await service.createPlatformKey('expiring', { expiresInDays: 30 });
    const { createdAt } = create.mock.calls[0][0];
    expect(expiresAt!.getTime() % 1000).toBe(0);
    expect(expiresAt!.getTime() - createdAt.getTime()).toBeGreaterThan(30 * DAY_MS - 1000);
    expect(expiresAt!.getTime() - createdAt.getTime()).toBeLessThanOrEqual(30 * DAY_MS);
    expect(create.mock.calls[0][0].expiresAt).toEqual(expiresAt);
  });

  it('answers organizations that do not exist 404 not found, naming them', async () => {
    const { service } = setUp([4, 6]);
    expect(await rejectionOf(service.createPlatformKey('scoped', { organizations: [4, 5, 6] }))).toEqual({
      status: 404,
      body: { code: 'not found', message: ['no organization 4, 6'] },
    });
  });
});

describe('IdentityService.revokePlatformKey', () => {
  it('looks a token up by its hash, and answers an unknown one 404 without echoing it', async () => {
    const { service, revoke } = setUp();
    const refused = await rejectionOf(service.revokePlatformKey('secret-token'));
    expect(refused).toEqual({ status: 404, body: { code: 'not found', message: ['no such platform key'] } });
    expect(revoke).toHaveBeenCalledWith({ tokenHash: hashToken('secret-token') }, expect.any(Date));
  });

  it('answers an unknown id 404 not found, naming it', async () => {
    const { service } = setUp();
    expect(await rejectionOf(service.revokePlatformKey({ id: 77 }))).toEqual({
      status: 404,
      body: { code: 'not found', message: ['no platform key 77'] },
    });
  });
});
