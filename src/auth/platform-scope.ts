import { Errors } from '../common/domain-error';
import type { PlatformCaller } from '../identity/caller';

/**
 * docs/api.md 10.1: a key restricted to some organizations sends events for those only; any
 * other is 403 forbidden. Called once the body is valid (its 400 comes first) and before the
 * organization is looked up (so a key learns nothing of organizations outside its list).
 */
export function refuseOrganizationOutsideKey(caller: PlatformCaller, organizationId: number): void {
  if (caller.organizations !== null && !caller.organizations.includes(organizationId)) throw Errors.forbidden();
}

/** docs/api.md 10.1.1: the same for a batch's events, 403 naming each event for another organization. */
export function refuseBatchOutsideKey(caller: PlatformCaller, events: readonly { organization: number }[]): void {
  const allowed = caller.organizations;
  if (allowed === null) return;
  const outside = events.flatMap(({ organization }, i) =>
    allowed.includes(organization) ? [] : [`events[${i}].organization: not one of the platform key's organizations`],
  );
  if (outside.length > 0) throw Errors.forbidden(...outside);
}
