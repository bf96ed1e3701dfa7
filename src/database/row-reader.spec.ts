import { describe, expect, it } from 'vitest';
import { Column, rowReader } from './row-reader';

const readRow = rowReader({
  id: Column.int,
  name: Column.text,
  at: Column.moment,
  due: Column.nullable(Column.millis),
  held: Column.positive,
  disabled: Column.present,
  fields: Column.json<string[]>(),
});

describe('rowReader', () => {
  it("reads mysql2's row (a COUNT as text, a datetime as a Date) as its shape", () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    expect(readRow({ id: '12', name: 'hook', at, due: at, held: '1', disabled: at, fields: '["url"]' })).toEqual({
      id: 12,
      name: 'hook',
      at,
      due: at.getTime(),
      held: true,
      disabled: true,
      fields: ['url'],
    });
  });

  it("reads SQLite's row (a datetime as its UTC text) the same way", () => {
    expect(readRow({ id: 12, name: 'hook', at: '2026-01-02 03:04:05.678', due: null, held: 0, disabled: null, fields: '[]' })).toEqual({
      id: 12,
      name: 'hook',
      at: new Date('2026-01-02T03:04:05.678Z'),
      due: null,
      held: false,
      disabled: false,
      fields: [],
    });
  });

  it('keeps only the columns of its shape', () => {
    expect(Object.keys(rowReader({ id: Column.int })({ id: 1, secret: 'never' }))).toEqual(['id']);
  });
});
