import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_CONTAINERS, MAX_JSON_MEMBERS, MAX_JSON_OBJECT_MEMBERS, MAX_JSON_VALUES, jsonStructureProblem } from './json-structure';

/* docs/api.md 4: the structure a JSON body may have, judged before it is parsed. */

const problemOf = (text: string) => jsonStructureProblem(Buffer.from(text));
const objectOf = (members: number, from = 0) => `{${Array.from({ length: members }, (_, i) => `"k${from + i}":1`).join(',')}}`;
const listOf = (items: string[]) => `[${items.join(',')}]`;

describe('jsonStructureProblem', () => {
  it(`takes ${MAX_JSON_CONTAINERS} objects and arrays and refuses one more`, () => {
    expect(problemOf(listOf(Array.from({ length: MAX_JSON_CONTAINERS - 1 }, () => '{}')))).toBeUndefined();
    expect(problemOf(listOf(Array.from({ length: MAX_JSON_CONTAINERS }, () => '[]')))).toBe('must hold at most 20000 objects and arrays');
  });

  it('counts nesting as containers: 20 001 levels are refused before any parse', () => {
    expect(problemOf(`${'['.repeat(MAX_JSON_CONTAINERS + 1)}${']'.repeat(MAX_JSON_CONTAINERS + 1)}`)).toBe(
      'must hold at most 20000 objects and arrays',
    );
  });

  it(`takes ${MAX_JSON_OBJECT_MEMBERS} members in one object and refuses one more`, () => {
    expect(problemOf(objectOf(MAX_JSON_OBJECT_MEMBERS))).toBeUndefined();
    expect(problemOf(objectOf(MAX_JSON_OBJECT_MEMBERS + 1))).toBe('must have at most 5000 members in any one object');
  });

  it('counts each object’s own members: a nested object’s are not its parent’s', () => {
    const nested = `{"a":${objectOf(MAX_JSON_OBJECT_MEMBERS - 1)},"b":${objectOf(MAX_JSON_OBJECT_MEMBERS - 1)}}`;
    expect(problemOf(nested)).toBeUndefined();
  });

  it(`takes ${MAX_JSON_MEMBERS} members in all and refuses one more`, () => {
    const objects = (total: number) => listOf(Array.from({ length: total / 2_500 }, (_, i) => objectOf(2_500, i * 2_500)));
    expect(problemOf(objects(MAX_JSON_MEMBERS))).toBeUndefined();
    expect(problemOf(listOf([objects(MAX_JSON_MEMBERS), '{"x":1}']))).toBe('must hold at most 25000 members of objects');
  });

  it(`takes ${MAX_JSON_VALUES} values in arrays and objects together and refuses one more`, () => {
    const values = (n: number) => listOf(Array.from({ length: n }, () => '0'));
    expect(problemOf(values(MAX_JSON_VALUES))).toBeUndefined();
    expect(problemOf(values(MAX_JSON_VALUES + 1))).toBe('must hold at most 100000 values in its arrays and objects');
  });

  it('counts nothing inside strings, escaped quotes and backslashes included', () => {
    const text = JSON.stringify({ a: `${'{['.repeat(MAX_JSON_CONTAINERS)}"\\":`.repeat(3) });
    expect(problemOf(text)).toBeUndefined();
    // A string ending in an escaped backslash closes there: what follows is counted again.
    expect(problemOf(`["\\\\",${listOf(Array.from({ length: MAX_JSON_CONTAINERS }, () => '[]'))}]`)).toBe(
      'must hold at most 20000 objects and arrays',
    );
  });

  it('counts malformed JSON as far as it goes, without throwing', () => {
    expect(problemOf('{"a":1,"unterminated')).toBeUndefined();
    expect(problemOf(']]]}}}:::')).toBeUndefined();
  });

  it('finds nothing wrong with any JSON value within the bounds, whatever its strings hold', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        expect(problemOf(JSON.stringify(value))).toBeUndefined();
      }),
    );
  });
});
