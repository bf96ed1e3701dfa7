/** A value bound to a `?` placeholder. */
export type SqlValue = string | number | null;
export type Row = Record<string, unknown>;

/** Runs raw statements, alone or inside a transaction (Database, and each connection of MysqlConnections). */
export interface SqlExecutor {
  select<T extends Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** For INSERT/UPDATE/DELETE: the number of rows the statement touched. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
  /** For an INSERT into a table with a generated id: that id. */
  insert(sql: string, params?: readonly SqlValue[]): Promise<number>;
}
