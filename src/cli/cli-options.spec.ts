import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { InvalidArgumentError } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonFileArgument, parseDays, parseIdList, parseLimit, UsageError } from './cli-options';

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

  describe('jsonFileArgument (event send --file)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-options-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = (name: string, text: string) => {
      writeFileSync(join(dir, name), text);
      return join(dir, name);
    };

    it('reads the JSON of a file, and of standard input for -', async () => {
      expect(await jsonFileArgument('--file', file('batch.json', '{"events":[]}\n'))).toEqual({ events: [] });
      expect(await jsonFileArgument('--file', '-', Readable.from(['{"events":', '[1]}']))).toEqual({ events: [1] });
    });

    it('refuses a file that cannot be read, naming the option, the file and why', async () => {
      const missing = join(dir, 'missing.json');
      await expect(jsonFileArgument('--file', missing)).rejects.toEqual(new UsageError(`--file ${missing}: cannot be read (ENOENT)`));
      await expect(jsonFileArgument('--file', dir)).rejects.toEqual(new UsageError(`--file ${dir}: cannot be read (EISDIR)`));
    });

    it('refuses text that is not JSON, naming the option and the file', async () => {
      await expect(jsonFileArgument('--file', file('bad.json', '{"events":'))).rejects.toThrow(
        new RegExp(`^--file ${join(dir, 'bad.json')}: not JSON \\(`),
      );
      await expect(jsonFileArgument('--file', '-', Readable.from([]))).rejects.toThrow(/^--file standard input: not JSON \(/);
    });
  });
});
