/**
 * An ISO 8601 moment as the API takes one (docs/api.md 10.7, 10.14): a date and a time whose
 * seconds and fraction are optional, with `Z` or an offset (`+02:00`, `-0530`), or a date alone,
 * its midnight UTC (as JavaScript reads one); never a local time, whose meaning would depend on
 * the server. A fraction finer than the milliseconds the database keeps rounds up, so that a
 * bound still includes exactly the moments at or after it.
 */
const ISO_MOMENT = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:(Z)|([+-])(\d{2}):?(\d{2})))?$/i;

export const ISO_MOMENT_RULE =
  'must be an ISO 8601 date and time with Z or an offset, such as 2026-01-15T09:30:00Z, or a date (its midnight UTC)';

/** The moment `text` names, or undefined when it is not one (a wrong shape, or a day or time that does not exist). */
export function parseIsoMoment(text: string): Date | undefined {
  const match = ISO_MOMENT.exec(text);
  if (match === null) return undefined;
  // `Z` (group 8) and a date alone both mean UTC: only an offset's sign moves the moment.
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', , sign, offsetHours, offsetMinutes] = match;
  const fields = [year, month, day, hour, minute, second].map(Number);
  const [y, mo, d, h, mi, s] = fields;
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  if (sign !== undefined && (Number(offsetHours) > 23 || Number(offsetMinutes) > 59)) return undefined;
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3)) + (/[1-9]/.test(fraction.slice(3)) ? 1 : 0);
  const local = new Date(0);
  local.setUTCFullYear(y, mo - 1, d);
  local.setUTCHours(h, mi, s, 0);
  // A day past the month's end (2026-02-30) rolls over: it names no day.
  if (local.getUTCDate() !== d) return undefined;
  const offsetMs = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000;
  return new Date(local.getTime() + ms - offsetMs);
}
