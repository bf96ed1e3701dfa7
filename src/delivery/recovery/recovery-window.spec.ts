import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/unit/domain-errors';
import { recoveryRequestHash, recoveryWindowOf } from './recovery-window';

const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const NOW = new Date('2026-03-01T12:00:00.000Z');
const HOUR = 3600_000;
const window = (since: Date, until?: Date) => recoveryWindowOf(until === undefined ? { since } : { since, until }, NOW, 30);

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
