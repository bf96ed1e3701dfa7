import { describe, expect, it } from 'vitest';
import { DomainError } from '../common/domain-error';
import type { PlatformCaller } from '../identity/caller';
import { refuseBatchOutsideKey, refuseOrganizationOutsideKey } from './platform-scope';

const keyFor = (organizations: number[] | null): PlatformCaller => ({ kind: 'platform', tokenKey: 'k', keyId: 1, organizations });

function outcome(run: () => void): unknown {
  try {
    run();
    return 'allowed';
  } catch (error) {
    return error instanceof DomainError
      ? { status: error.status, code: error.code, ...(error.details && { message: error.details }) }
      : error;
  }
}

describe('refuseOrganizationOutsideKey (docs/api.md 10.1)', () => {
  it('allows any organization to a key of every organization', () => {
    expect(outcome(() => refuseOrganizationOutsideKey(keyFor(null), 123))).toBe('allowed');
  });

  it('allows an organization of a restricted key', () => {
    expect(outcome(() => refuseOrganizationOutsideKey(keyFor([2, 7]), 7))).toBe('allowed');
  });

  it('answers 403 forbidden for an organization outside the key', () => {
    expect(outcome(() => refuseOrganizationOutsideKey(keyFor([2, 7]), 3))).toEqual({ status: 403, code: 'forbidden' });
  });

  it('answers 403 forbidden for every organization once a restricted key has none left (they were deleted)', () => {
    expect(outcome(() => refuseOrganizationOutsideKey(keyFor([]), 2))).toEqual({ status: 403, code: 'forbidden' });
  });
});

describe('refuseBatchOutsideKey (docs/api.md 10.1.1)', () => {
  const batch = [2, 3, 7, 4].map((organization) => ({ organization }));

  it('allows every event to a key of every organization, and the events of its organizations to a restricted key', () => {
    expect(outcome(() => refuseBatchOutsideKey(keyFor(null), batch))).toBe('allowed');
    expect(outcome(() => refuseBatchOutsideKey(keyFor([2, 3, 4, 7]), batch))).toBe('allowed');
  });

  it('answers 403 forbidden naming each event for an organization outside the key', () => {
    expect(outcome(() => refuseBatchOutsideKey(keyFor([2, 7]), batch))).toEqual({
      status: 403,
      code: 'forbidden',
      message: [
        "events[1].organization: not one of the platform key's organizations",
        "events[3].organization: not one of the platform key's organizations",
      ],
    });
  });
});
