import { parse } from 'node:querystring';
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../test/support/unit/domain-errors';
import { DEFAULT_PAGE_LIMIT, PageQueryDto } from './page-query.dto';
import { validateParameters } from './validation/validate-input';

// Queries as Express 5 parses them: a string per parameter, an array of strings for a repeated one.
const page = (query: Record<string, unknown>) => validateParameters(PageQueryDto, query);
const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const LIMIT_RULE = 'limit: must be a whole number from 1 to 100';

describe('PageQueryDto (docs/api.md 10.7, 10.9)', () => {
  it(`gives limit ${DEFAULT_PAGE_LIMIT} and no cursor to an empty query`, () => {
    const query = page({});
    expect(query).toBeInstanceOf(PageQueryDto);
    expect({ ...query }).toEqual({ limit: DEFAULT_PAGE_LIMIT });
  });

  it.each([
    ['1', 1],
    ['100', 100],
    ['07', 7],
    ['001', 1],
  ])('reads limit=%s as %d', (limit, expected) => {
    expect(page({ limit }).limit).toBe(expected);
  });

  it('passes the cursor as given, for the list to check', () => {
    expect({ ...page({ limit: '10', cursor: 'opaque.mac' }) }).toEqual({ limit: 10, cursor: 'opaque.mac' });
    expect(page({ cursor: '' }).cursor).toBe('');
  });

  it.each([
    ['0', '0'],
    ['101', '101'],
    ['a negative number', '-1'],
    ['a fraction', '1.5'],
    ['7.0', '7.0'],
    ['four digits', '0001'],
    ['an exponent', '1e1'],
    ['hex', '0x10'],
    ['a leading space', ' 5'],
    ['letters', 'abc'],
    ['an empty value (?limit= or ?limit)', ''],
  ])('refuses a limit of %s with 400 bad request', (_, limit) => {
    expect(thrownBy(() => page({ limit }))).toEqual(badRequest(LIMIT_RULE));
  });

  it('refuses a repeated parameter with 400 bad request naming it, and nothing else about it', () => {
    expect(thrownBy(() => page({ limit: ['1', '2'] }))).toEqual(badRequest('limit: must be given once'));
    expect(thrownBy(() => page({ limit: ['0', 'x'] }))).toEqual(badRequest('limit: must be given once'));
    expect(thrownBy(() => page({ cursor: ['a', 'b'] }))).toEqual(badRequest('cursor: must be given once'));
  });

  it('names every parameter with a problem at once, in the order the DTO declares them', () => {
    expect(thrownBy(() => page({ cursor: ['a', 'b'], limit: '0' }))).toEqual(badRequest(LIMIT_RULE, 'cursor: must be given once'));
  });

  it('drops parameters it does not declare, as the lists always have, repeated or not', () => {
    const query = page({ limit: '5', foo: '1', _: ['1', '2'], state: 'lost', Limit: '1000', 'limit[a]': '1' });
    expect({ ...query }).toEqual({ limit: 5 });
  });

  it('drops keys that name what every object inherits', () => {
    const query = parse('__proto__=x&constructor=y&toString=z&hasOwnProperty=w&limit=3');
    expect(Object.keys(query)).toContain('__proto__');
    expect({ ...page(query) }).toEqual({ limit: 3 });
  });

  it('still checks a declared parameter beside unknown ones', () => {
    expect(thrownBy(() => page({ foo: '1', limit: '0' }))).toEqual(badRequest(LIMIT_RULE));
  });
});
