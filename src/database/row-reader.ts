import { dateOf } from './sql-dialect';
import type { Row } from './sql-executor';

/**
 * How one column of a driver's row reads as its type: the one place where a row's values are
 * cast. The drivers differ: mysql2 (with TypeORM's options) gives a BIGINT such as a COUNT, or a
 * DECIMAL such as a SUM, as text and a datetime as a Date; SQLite gives numbers, and a datetime
 * as its UTC text.
 */
export type ColumnReader<T> = (value: unknown) => T;

const absent = (value: unknown): value is null | undefined => value === null || value === undefined;

export const Column = {
  int: ((value) => Number(value)) as ColumnReader<number>,
  text: ((value) => String(value)) as ColumnReader<string>,
  /** Text whose values the schema limits to a union (a state, an action). */
  member:
    <T extends string>(): ColumnReader<T> =>
    (value) =>
      String(value) as T,
  moment: ((value) => dateOf(value as Date | string)) as ColumnReader<Date>,
  /** A moment as milliseconds since the epoch (the dispatcher's clock). */
  millis: ((value) => dateOf(value as Date | string).getTime()) as ColumnReader<number>,
  /** A count or a 0/1 flag (`COUNT(*)`, a BOOLEAN): whether it is above zero. */
  positive: ((value) => Number(value) > 0) as ColumnReader<boolean>,
  /** Whether the column holds a value at all (a `disabled_at`: its presence is the fact). */
  present: ((value) => !absent(value)) as ColumnReader<boolean>,
  /** JSON text, parsed. */
  json:
    <T>(): ColumnReader<T> =>
    (value) =>
      JSON.parse(String(value)) as T,
  /** Null stays null (as does a column the row lacks); any other value is read by `read`. */
  nullable:
    <T>(read: ColumnReader<T>): ColumnReader<T | null> =>
    (value) =>
      absent(value) ? null : read(value),
} as const;

/** A SELECT's columns as it aliases them, each with its reader. */
export type RowShape = Readonly<Record<string, ColumnReader<unknown>>>;

/** A row of that shape, typed. */
export type RowOf<S extends RowShape> = { readonly [K in keyof S]: ReturnType<S[K]> };

/**
 * The reader of a SELECT's rows, declared once at a repository's edge beside its SQL, so that
 * what leaves the repository is typed and nothing past it casts a driver's value.
 */
export function rowReader<S extends RowShape>(shape: S): (row: Row) => RowOf<S> {
  const columns = Object.entries(shape);
  return (row) => {
    const typed: Record<string, unknown> = {};
    for (const [name, read] of columns) typed[name] = read(row[name]);
    return typed as RowOf<S>;
  };
}
