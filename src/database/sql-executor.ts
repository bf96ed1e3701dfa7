/** A value bound to a `?` placeholder. */
export type SqlValue = string | number | null;
export type Row = Record<string, unknown>;

/**
 * SQL whose text changes with its values (a list of `?` as long as the list, a CASE per row): on
 * MySQL it is sent as a text query, never prepared, because every new text would be one more
 * statement held on the server (docs/api.md 9, "Bounded use of the database server"). A plain
 * string is fixed text, prepared once per connection.
 */
export class VaryingSql {
  constructor(readonly text: string) {}
}

/** Marks SQL built from a list of values: see VaryingSql. */
export const varying = (text: string): VaryingSql => new VaryingSql(text);

/** Fixed SQL (prepared on MySQL) or VaryingSql (sent as text). */
export type Sql = string | VaryingSql;

export const textOf = (sql: Sql): string => (sql instanceof VaryingSql ? sql.text : sql);

/** `?, ?, ?` for a list of `n` values (inside VaryingSql). */
export const placeholders = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/**
 * A derived table of `count` rows of parameters with these column names (inside VaryingSql):
 * `SELECT ? AS a, ? AS b UNION ALL SELECT ?, ? …`, which MySQL, MariaDB and SQLite all read alike
 * (their VALUES lists name columns each its own way). Its parameters: row after row. SQLite takes
 * at most 500 parts in one compound SELECT.
 */
export const parameterRows = (columns: readonly string[], count: number): string =>
  [
    `SELECT ${columns.map((column) => `? AS ${column}`).join(', ')}`,
    ...Array.from({ length: count - 1 }, () => `SELECT ${placeholders(columns.length)}`),
  ].join(' UNION ALL ');

/** Runs raw statements, alone or inside a transaction (Database, and each connection of MysqlConnections). */
export interface SqlExecutor {
  select<T extends Row>(sql: Sql, params?: readonly SqlValue[]): Promise<T[]>;
  /** For INSERT/UPDATE/DELETE: the number of rows the statement touched. */
  execute(sql: Sql, params?: readonly SqlValue[]): Promise<number>;
  /** For an INSERT into a table with a generated id: that id. */
  insert(sql: Sql, params?: readonly SqlValue[]): Promise<number>;
}

/** One statement of a script (Database.atomically): its SQL and values, and whether it returns rows (a SELECT). */
export interface ScriptStatement {
  readonly sql: string;
  readonly params: readonly SqlValue[];
  readonly rows?: boolean;
}

/** What a statement of a script gave: the rows of a SELECT, or the rows another statement touched. */
export type ScriptResult = Row[] | number;
