import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../../test/support/unit/domain-errors';
import { QueryPipe } from '../../../common/query.pipe';
import { DELIVERY_STATES } from '../../delivery.model';
import { DeliveryLogQueryDto } from './delivery-log-query.dto';

const sut = new QueryPipe(DeliveryLogQueryDto);
const log = (query: Record<string, unknown>) => sut.transform(query);
const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const STATE_RULE = 'state: must be one of pending, succeeded, failed, cancelled';

describe('QueryPipe with DeliveryLogQueryDto (docs/api.md 10.7)', () => {
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
});
