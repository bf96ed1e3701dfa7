import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/unit/domain-errors';
import { parseRecoveryRequest, recoveryRequestHash, recoveryWindowOf } from './recovery-window';

const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const MOMENT_RULE = 'must be an ISO 8601 date and time with Z or an offset, such as 2026-01-15T09:30:00Z, or a date (its midnight UTC)';
const NOW = new Date('2026-03-01T12:00:00.000Z');
const HOUR = 3600_000;
const window = (since: Date, until?: Date) => recoveryWindowOf(until === undefined ? { since } : { since, until }, NOW, 30);

describe('parseRecoveryRequest (docs/api.md 10.14)', () => {
  it('reads since, and until when given', () => {
    expect(parseRecoveryRequest({ since: '2026-03-01T10:00:00Z' })).toEqual({ since: new Date('2026-03-01T10:00:00Z') });
    expect(parseRecoveryRequest({ since: '2026-03-01T10:00:00Z', until: '2026-03-01T13:00:00+02:00' })).toEqual({
      since: new Date('2026-03-01T10:00:00Z'),
      until: new Date('2026-03-01T11:00:00Z'),
    });
  });

  it.each([
    ['no body', undefined, ['since: is required']],
    ['an empty body', {}, ['since: is required']],
    ['a body that is not an object', ['2026-03-01T10:00:00Z'], ['body must be a JSON object']],
    ['a local time', { since: '2026-03-01T10:00:00' }, [`since: ${MOMENT_RULE}`]],
    ['a number', { since: 1772359200 }, [`since: ${MOMENT_RULE}`]],
    ['a null since', { since: null }, [`since: ${MOMENT_RULE}`]],
    ['a null until', { since: '2026-03-01T10:00:00Z', until: null }, [`until: ${MOMENT_RULE}`]],
    ['an unknown member', { since: '2026-03-01T10:00:00Z', state: 'failed' }, ['state: unknown member']],
    ['everything wrong at once', { from: 1, until: 'later' }, ['from: unknown member', 'since: is required', `until: ${MOMENT_RULE}`]],
  ])('refuses %s with 400 bad request', (_, body, message) => {
    expect(thrownBy(() => parseRecoveryRequest(body))).toEqual(badRequest(...message));
  });
});

describe('recoveryWindowOf (docs/api.md 10.14)', () => {
  it('runs until now when until is absent', () => {
    expect(window(new Date(NOW.getTime() - HOUR))).toEqual({ since: new Date(NOW.getTime() - HOUR), until: NOW });
  });

  it('takes since exactly DELIVERY_RETENTION_DAYS ago, and until exactly now', () => {
    const oldest = new Date(NOW.getTime() - 30 * 24 * HOUR);
    expect(window(oldest, NOW)).toEqual({ since: oldest, until: NOW });
  });

  it('refuses a since older than DELIVERY_RETENTION_DAYS', () => {
    expect(thrownBy(() => window(new Date(NOW.getTime() - 30 * 24 * HOUR - 1)))).toEqual(
      badRequest('since: must be within the last 30 days (deliveries are kept no longer)'),
    );
  });

  it('refuses an until in the future', () => {
    expect(thrownBy(() => window(new Date(NOW.getTime() - HOUR), new Date(NOW.getTime() + 1)))).toEqual(
      badRequest('until: must not be in the future'),
    );
  });

  it('refuses a since at or after until, or in the future without one', () => {
    expect(thrownBy(() => window(new Date(NOW.getTime() - HOUR), new Date(NOW.getTime() - HOUR)))).toEqual(
      badRequest('since: must be before until'),
    );
    expect(thrownBy(() => window(new Date(NOW.getTime() - HOUR), new Date(NOW.getTime() - 2 * HOUR)))).toEqual(
      badRequest('since: must be before until'),
    );
    expect(thrownBy(() => window(new Date(NOW.getTime() + HOUR)))).toEqual(badRequest('since: must be before now'));
  });
});

describe('recoveryRequestHash', () => {
  it('tells an absent until from one given, and one moment from another', () => {
    const since = new Date('2026-03-01T10:00:00Z');
    const hashes = new Set([
      recoveryRequestHash({ since }),
      recoveryRequestHash({ since, until: NOW }),
      recoveryRequestHash({ since: new Date(since.getTime() + 1) }),
    ]);
    expect(hashes.size).toBe(3);
    expect(recoveryRequestHash({ since: new Date('2026-03-01T12:00:00+02:00') })).toBe(recoveryRequestHash({ since }));
  });
});
