import { describe, expect, it } from 'vitest';
import { DomainError } from '../common/domain-error';
import type { PlatformCaller } from '../identity/caller';
import { refuseOrganizationOutsideKey } from './platform-scope';

const keyFor = (organizations: number[] | null): PlatformCaller => ({ kind: 'platform', tokenKey: 'k', keyId: 1, organizations });

function outcome(run: () => void): unknown {
  try {
    run();
    return 'allowed';
  } catch (error) {
    return error instanceof DomainError ? { status: error.status, code: error.code } : error;
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
