import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../../test/support/unit/domain-errors';
import { validateParameters } from '../../../common/validation/validate-input';
import { DELIVERY_STATES } from '../../delivery.model';
import { DeliveryLogQueryDto } from './delivery-log-query.dto';

const log = (query: Record<string, unknown>) => validateParameters(DeliveryLogQueryDto, query);
const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const STATE_RULE = 'state: must be one of pending, succeeded, failed, cancelled';

describe('DeliveryLogQueryDto (docs/api.md 10.7)', () => {
  it('gives limit 50, no cursor and no state to an empty query', () => {
    expect({ ...log({}) }).toEqual({ limit: 50 });
  });

  it.each(DELIVERY_STATES)('filters by state=%s', (state) => {
    expect({ ...log({ state, limit: '2', cursor: 'c' }) }).toEqual({ limit: 2, cursor: 'c', state });
  });

  it.each([
    ['an unknown state', 'lost'],
    ['a state in capitals', 'PENDING'],
    ['an empty state (?state= or ?state)', ''],
  ])('refuses %s with 400 bad request', (_, state) => {
    expect(thrownBy(() => log({ state }))).toEqual(badRequest(STATE_RULE));
  });

  it('refuses a repeated state with 400 bad request', () => {
    expect(thrownBy(() => log({ state: ['failed', 'pending'] }))).toEqual(badRequest('state: must be given once'));
  });

  it("names limit's problem before state's, as the answer always has", () => {
    expect(thrownBy(() => log({ state: 'lost', cursor: 'c', limit: '0' }))).toEqual(
      badRequest('limit: must be a whole number from 1 to 100', STATE_RULE),
    );
    expect(thrownBy(() => log({ state: ['x', 'y'], limit: ['1', '2'] }))).toEqual(
      badRequest('limit: must be given once', 'state: must be given once'),
    );
  });

  it('keeps the limit rules of every paged list', () => {
    expect(thrownBy(() => log({ limit: '101' }))).toEqual(badRequest('limit: must be a whole number from 1 to 100'));
    expect(log({ limit: '100' }).limit).toBe(100);
  });

  it.each(['transaction.created', 'card.updated', 'user.updated', 'webhook.test', 'webhook.disabled'])('filters by type=%s', (type) => {
    expect({ ...log({ type }) }).toEqual({ limit: 50, type });
  });

  it.each([
    ['an unknown type', 'card.created'],
    ['a group wildcard', 'card.*'],
    ['an empty type', ''],
  ])('refuses %s with 400 bad request', (_, type) => {
    expect(thrownBy(() => log({ type }))).toEqual(
      badRequest(
        'type: must be one of transaction.created, transaction.updated, transaction.completed, card.updated, user.updated, webhook.test, webhook.disabled',
      ),
    );
  });

  it('reads since and until as moments, an offset whose + the query string made a space included', () => {
    expect({ ...log({ since: '2026-01-15T09:30:00Z', until: '2026-01-15T11:30:00.5 02:00' }) }).toEqual({
      limit: 50,
      since: new Date('2026-01-15T09:30:00.000Z'),
      until: new Date('2026-01-15T09:30:00.500Z'),
    });
  });

  it.each([
    ['a local time', '2026-01-15T09:30:00'],
    ['a date and an hour alone', '2026-01-15T09'],
    ['a number', '1768469400'],
    ['February 30', '2026-02-30T00:00:00Z'],
    ['an empty value', ''],
  ])('refuses %s as since or until with 400 bad request', (_, moment) => {
    const rule = 'must be an ISO 8601 date and time with Z or an offset, such as 2026-01-15T09:30:00Z, or a date (its midnight UTC)';
    expect(thrownBy(() => log({ since: moment }))).toEqual(badRequest(`since: ${rule}`));
    expect(thrownBy(() => log({ until: moment }))).toEqual(badRequest(`until: ${rule}`));
  });

  it('refuses an until that is not after since', () => {
    expect(thrownBy(() => log({ since: '2026-01-15T09:30:00Z', until: '2026-01-15T09:30:00Z' }))).toEqual(
      badRequest('until: must be after since'),
    );
    expect(thrownBy(() => log({ since: '2026-01-15T09:30:00Z', until: '2026-01-15T11:29:59+02:00' }))).toEqual(
      badRequest('until: must be after since'),
    );
  });

  it('refuses a repeated since, and names every bad filter in order', () => {
    expect(thrownBy(() => log({ since: ['2026-01-15T09:30:00Z', '2026-01-16T09:30:00Z'] }))).toEqual(
      badRequest('since: must be given once'),
    );
    expect(thrownBy(() => log({ state: 'lost', type: 'x', since: 'y', until: 'z' }))).toMatchObject({
      body: {
        message: [STATE_RULE, expect.stringMatching(/^type: /), expect.stringMatching(/^since: /), expect.stringMatching(/^until: /)],
      },
    });
  });
});
