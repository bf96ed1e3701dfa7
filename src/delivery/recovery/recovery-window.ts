import { createHash } from 'node:crypto';
import { Errors } from '../../common/domain-error';

/** A recovery as asked for (docs/api.md 10.14): `until` absent means now. */
export interface RecoveryRequest {
  readonly since: Date;
  readonly until?: Date;
}

/** The deliveries a recovery takes: those created in [since, until). */
export interface RecoveryWindow {
  readonly since: Date;
  readonly until: Date;
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * The window a recovery takes at `now` (docs/api.md 10.14): `since` no older than the deliveries
 * kept (DELIVERY_RETENTION_DAYS), `until` (now when absent) not in the future, `since` before
 * it; else 400 `bad request`.
 */
export function recoveryWindowOf(request: RecoveryRequest, now: Date, retentionDays: number): RecoveryWindow {
  const { since, until = now } = request;
  const problems: string[] = [];
  if (since.getTime() < now.getTime() - retentionDays * DAY_MS) {
    problems.push(`since: must be within the last ${retentionDays} days (deliveries are kept no longer)`);
  }
  if (until > now) problems.push('until: must not be in the future');
  else if (since >= until) problems.push(`since: must be before ${until === now ? 'now' : 'until'}`);
  if (problems.length > 0) throw Errors.badRequest(problems);
  return { since, until };
}

/** What an Idempotency-Key compares (docs/api.md 10.14, as 10.1): the window as sent, `until` absent or not. */
export const recoveryRequestHash = ({ since, until }: RecoveryRequest): string =>
  createHash('sha256')
    .update(JSON.stringify([since.getTime(), until?.getTime() ?? null]))
    .digest('hex');
