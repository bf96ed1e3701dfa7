import { createHash } from 'node:crypto';
import { Errors } from '../../common/domain-error';
import { ISO_MOMENT_RULE, parseIsoMoment } from '../../common/iso-moment';

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
const MEMBERS = ['since', 'until'];

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `POST …/recover`'s body: exactly `{"since"}` or `{"since", "until"}`, each an ISO 8601 moment
 * with `Z` or an offset. Checked by hand as POST /events' body is: two members are simpler to
 * check than to declare. Every problem is 400 `bad request`, each named in `message`.
 */
export function parseRecoveryRequest(body: unknown): RecoveryRequest {
  const given = body === undefined ? {} : body;
  if (!isPlainObject(given)) throw Errors.badRequest(['body must be a JSON object']);
  const problems = Object.keys(given)
    .filter((key) => !MEMBERS.includes(key))
    .map((key) => `${key}: unknown member`);
  const moment = (name: string, value: unknown): Date | undefined => {
    const parsed = typeof value === 'string' ? parseIsoMoment(value) : undefined;
    if (parsed === undefined) problems.push(`${name}: ${ISO_MOMENT_RULE}`);
    return parsed;
  };
  if (given.since === undefined) problems.push('since: is required');
  const since = given.since === undefined ? undefined : moment('since', given.since);
  const until = given.until === undefined ? undefined : moment('until', given.until);
  if (problems.length > 0) throw Errors.badRequest(problems);
  return { since: since!, ...(until === undefined ? {} : { until }) };
}

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
