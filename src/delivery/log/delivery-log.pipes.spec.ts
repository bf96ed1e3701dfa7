import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/unit/domain-errors';
import { DeliveryPipe } from './delivery-log.pipes';

describe('DeliveryPipe: the delivery id (docs/api.md 10.7)', () => {
  const id = (id: string) => new DeliveryPipe().transform({ params: { name: 'hook', id }, query: {}, body: undefined, headers: {} }).id;

  it.each([
    ['1', 1],
    ['42', 42],
    ['2147483648', 2_147_483_648],
    ['9007199254740991', Number.MAX_SAFE_INTEGER],
  ])('returns the number %s', (given, number) => {
    expect(id(given)).toBe(number);
  });

  it.each([
    ['zero', '0'],
    ['a negative id', '-1'],
    ['a leading zero', '01'],
    ['a fraction', '1.0'],
    ['an exponent', '1e3'],
    ['17 digits', '1'.repeat(17)],
    ['letters', 'abc'],
    ['hex', '0x10'],
    ['an empty id', ''],
    ['a space', ' 1'],
    ['a trailing space', '1 '],
    ['a trailing newline', '1\n'],
  ])('answers %s 404 not found, as an unknown id', (_, given) => {
    expect(thrownBy(() => id(given))).toEqual({ status: 404, body: { code: 'not found' } });
  });
});
