import { placeholders } from './sql-executor';

/**
 * The few places where the SQL of MySQL/MariaDB and SQLite differ. Repositories write plain
 * SQL with `?` placeholders and take these fragments from here.
 */
export interface SqlDialect {
  readonly name: 'mysql' | 'sqlite';
  /** The current UTC time, comparable with the stored `datetime` columns. */
  readonly now: string;
  /** Appended to a SELECT that must lock its rows until the transaction ends. */
  readonly forUpdate: string;
  /** Appended to a SELECT that takes shared locks on its rows until the transaction ends. */
  readonly forShare: string;
  /** Appended to a SELECT that locks its rows and skips those another transaction holds (the queue's claim). */
  readonly forUpdateSkipLocked: string;
  /** One statement that returns the rows of each SELECT (each may have its own ORDER BY, LIMIT and lock). */
  unionAll(selects: readonly string[]): string;
  /**
   * Written after a table name: the index a statement reads, where the planner cannot be trusted
   * to find it. MySQL's planner has the statistics (nothing); SQLite keeps none unless ANALYZE
   * runs, and its guess can prefer a range of one index to the equalities of another.
   */
  indexedBy(index: string): string;
  /** `INSERT INTO table (columns) VALUES (...)` that does nothing when `key` already exists. */
  insertUnlessExists(table: string, columns: readonly string[], key: string): string;
  /** `INSERT INTO table (columns) VALUES (...)` that sets `update` instead when `key` exists. */
  upsert(table: string, columns: readonly string[], key: readonly string[], update: readonly string[]): string;
}

/** A moment as the `datetime` columns hold it in both dialects: UTC, `YYYY-MM-DD HH:MM:SS.mmm`. */
export const sqlTimestamp = (at: Date): string => at.toISOString().replace('T', ' ').replace('Z', '');

/** A `datetime` column as read: mysql2 gives a Date, SQLite the stored UTC text. */
export const dateOf = (value: Date | string): Date => (value instanceof Date ? value : new Date(`${value.replace(' ', 'T')}Z`));

export const MYSQL_DIALECT: SqlDialect = {
  name: 'mysql',
  now: 'UTC_TIMESTAMP(3)',
  forUpdate: ' FOR UPDATE',
  forUpdateSkipLocked: ' FOR UPDATE SKIP LOCKED',
  forShare: ' LOCK IN SHARE MODE',
  unionAll: (selects) => selects.map((select) => `(${select})`).join(' UNION ALL '),
  indexedBy: () => '',
  // ON DUPLICATE KEY takes an exclusive lock on an existing row (INSERT IGNORE would take a
  // shared one, and two writers upgrading it to exclusive would deadlock).
  insertUnlessExists: (table, columns, key) =>
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders(columns.length)}) ON DUPLICATE KEY UPDATE ${key} = ${key}`,
  upsert: (table, columns, _key, update) =>
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders(columns.length)}) ON DUPLICATE KEY UPDATE ${update.map((c) => `${c} = VALUES(${c})`).join(', ')}`,
};

export const SQLITE_DIALECT: SqlDialect = {
  name: 'sqlite',
  now: "strftime('%Y-%m-%d %H:%M:%f', 'now')",
  forUpdate: '',
  // One writer at a time, and one instance per file: nothing to skip.
  forUpdateSkipLocked: '',
  forShare: '',
  // A compound SELECT takes ORDER BY and LIMIT only at its end: each part goes in a subquery.
  unionAll: (selects) => selects.map((select) => `SELECT * FROM (${select})`).join(' UNION ALL '),
  indexedBy: (index) => ` INDEXED BY ${index}`,
  insertUnlessExists: (table, columns, key) =>
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders(columns.length)}) ON CONFLICT (${key}) DO NOTHING`,
  upsert: (table, columns, key, update) =>
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${placeholders(columns.length)}) ON CONFLICT (${key.join(', ')}) DO UPDATE SET ${update.map((c) => `${c} = excluded.${c}`).join(', ')}`,
};
