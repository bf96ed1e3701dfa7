import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseDays, parseIdList, parseLimit } from './cli-options';

describe('CLI option parsers (docs/api.md 8)', () => {
  describe('parseIdList (--org 1,2)', () => {
    it.each<[string, number[]]>([
      ['1', [1]],
      ['1,2,5', [1, 2, 5]],
      ['5, 2', [5, 2]],
      ['3,3,1,3', [3, 1]],
      ['2147483647', [2_147_483_647]],
    ])('reads %j as %j', (value, ids) => {
      expect(parseIdList(value)).toEqual(ids);
    });

    it.each(['', ',', '1,', ',1', '1,,2', '0', '1,-2', '1,abc', '1.5', '01', '2147483648', '1;2'])('refuses %j', (value) => {
      expect(() => parseIdList(value)).toThrow(InvalidArgumentError);
    });
  });

  describe('parseDays (--expires-in)', () => {
    it.each<[string, number]>([
      ['1', 1],
      ['30', 30],
      ['36500', 36_500],
    ])('reads %j as %d days', (value, days) => {
      expect(parseDays(value)).toBe(days);
    });

    it.each(['0', '-1', '1.5', '1d', ' 1', '', '36501', '100000', '01'])('refuses %j', (value) => {
      expect(() => parseDays(value)).toThrow(InvalidArgumentError);
    });
  });

  describe('parseLimit (audit list --limit)', () => {
    it('reads 1 and the maximum', () => {
      expect([parseLimit('1', 1000), parseLimit('1000', 1000)]).toEqual([1, 1000]);
    });

    it.each(['0', '1001', '-3', 'ten', '2.5'])('refuses %j', (value) => {
      expect(() => parseLimit(value, 1000)).toThrow(InvalidArgumentError);
    });
  });
});
