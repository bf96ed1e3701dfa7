import type { Pool, PoolConnection, ResultSetHeader } from 'mysql2';
import { isDatabaseUnavailable } from './database-errors';
import { type Row, type ScriptResult, type ScriptStatement, type Sql, type SqlExecutor, type SqlValue, VaryingSql } from './sql-executor';

export interface MysqlDeadlines {
  /** Longest wait for a pooled connection (mysql2's pool queues without a limit). */
  readonly acquireMs: number;
  /** Longest wait for one statement's answer. */
  readonly queryMs: number;
  /** Every connection of the pool was set to READ COMMITTED when it opened. */
  readonly readCommittedSessions?: boolean;
  /** The pool's connections take multi-statement queries (`script`). */
  readonly multipleStatements?: boolean;
}

/**
 * What every session of our pools is set to when it opens (docs/api.md 9): a pinned `sql_mode`
 * (no server default such as NO_BACKSLASH_ESCAPES may change how mysql2 quotes a value in a text
 * query), and lock waits that end before the client's own statement deadline, so that no
 * transaction the client gave up on still waits for locks, holding its own.
 */
export function sessionSettings(queryMs: number, readCommitted: boolean): string[] {
  const lockWaitSeconds = lockWaitSecondsFor(queryMs);
  return [
    `SET SESSION sql_mode = '${PINNED_SQL_MODE}', innodb_lock_wait_timeout = ${lockWaitSeconds}, lock_wait_timeout = ${lockWaitSeconds}`,
    ...(readCommitted ? ['SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'] : []),
  ];
}

/** MariaDB's and MySQL 8's common strict mode, without NO_BACKSLASH_ESCAPES. */
export const PINNED_SQL_MODE = 'STRICT_TRANS_TABLES,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION';

/** InnoDB counts lock waits in whole seconds: the longest that still ends a second before the statement deadline (at least 1). */
export const lockWaitSecondsFor = (queryMs: number): number => Math.max(1, Math.floor(queryMs / 1000) - 1);

/**
 * mysql2's pool (the one under TypeORM's driver) with the deadlines it lacks, so that no
 * request waits on an unreachable database for longer than they allow: a bounded wait for a
 * connection, a timeout on every statement, and a connection that failed on the wire is
 * destroyed rather than handed to the next caller (mysql2 leaves a timed-out statement
 * pending on it). Fixed statements are prepared (binary protocol), parsed once per connection
 * and kept in mysql2's cache, which the pool bounds (Database.open); SQL whose text varies with
 * its values goes as text (VaryingSql).
 */
export class MysqlConnections {
  constructor(
    private readonly pool: Pool,
    private readonly deadlines: MysqlDeadlines,
  ) {}

  get multipleStatements(): boolean {
    return this.deadlines.multipleStatements === true;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.pool.end(() => resolve()));
  }

  /** One statement on a connection of its own. */
  run<T>(use: (statements: SqlExecutor) => Promise<T>): Promise<T> {
    return this.withConnection((connection) => use(new ConnectionStatements(connection, this.deadlines.queryMs)));
  }

  /**
   * BEGIN … COMMIT on one connection; ROLLBACK and rethrow when `work` fails. `readCommitted`:
   * this one transaction runs at READ COMMITTED, whose locking reads take no gap locks.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, { readCommitted = false } = {}): Promise<T> {
    return this.withConnection(async (connection) => {
      const tx = new ConnectionStatements(connection, this.deadlines.queryMs);
      if (readCommitted && !this.deadlines.readCommittedSessions) await tx.command('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      await tx.command('START TRANSACTION');
      try {
        const result = await work(tx);
        await tx.command('COMMIT');
        return result;
      } catch (error) {
        await tx.command('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * The statements in one transaction sent as one multi-statement text query: one round trip
   * (and one socket write) instead of four for BEGIN, two statements and COMMIT. Values are
   * escaped by mysql2 as for any text query. When a statement fails, MySQL runs none of the
   * rest: the open transaction is rolled back and the error thrown. What each statement gave.
   * Needs a pool opened with multipleStatements (ingest's one connection).
   */
  script(statements: readonly ScriptStatement[]): Promise<ScriptResult[]> {
    return this.withConnection(async (connection) => {
      const sql = ['START TRANSACTION', ...statements.map((s) => s.sql), 'COMMIT'].join(';\n');
      const values = statements.flatMap((s) => s.params as SqlValue[]);
      try {
        const results = (await withinDeadline(connection, this.deadlines.queryMs, (done) => connection.query({ sql, values }, done))) as (
          ResultSetHeader | Row[]
        )[];
        return results.slice(1, -1).map((result) => (Array.isArray(result) ? result : result.affectedRows));
      } catch (error) {
        await new ConnectionStatements(connection, this.deadlines.queryMs).command('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  private async withConnection<T>(use: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    let broken = false;
    try {
      return await use(connection);
    } catch (error) {
      broken = isDatabaseUnavailable(error);
      throw error;
    } finally {
      if (broken) connection.destroy();
      else connection.release();
    }
  }

  private acquire(): Promise<PoolConnection> {
    return new Promise((resolve, reject) => {
      let gaveUp = false;
      const timer = setTimeout(() => {
        gaveUp = true;
        reject(Object.assign(new Error(`no database connection within ${this.deadlines.acquireMs} ms`), { code: 'POOL_ACQUIRE_TIMEOUT' }));
      }, this.deadlines.acquireMs);
      this.pool.getConnection((error, connection) => {
        if (gaveUp) {
          if (!error) connection.release(); // arrived late: the next caller may use it
          return;
        }
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(connection);
      });
    });
  }
}

/** Statements on one pooled connection, each with the statement deadline. */
class ConnectionStatements implements SqlExecutor {
  constructor(
    private readonly connection: PoolConnection,
    private readonly timeoutMs: number,
  ) {}

  async select<T extends Row>(sql: Sql, params: readonly SqlValue[] = []): Promise<T[]> {
    return (await this.statement(sql, params)) as T[];
  }

  async execute(sql: Sql, params: readonly SqlValue[] = []): Promise<number> {
    return ((await this.statement(sql, params)) as ResultSetHeader).affectedRows;
  }

  async insert(sql: Sql, params: readonly SqlValue[] = []): Promise<number> {
    return ((await this.statement(sql, params)) as ResultSetHeader).insertId;
  }

  /** A statement that cannot be prepared (transaction control). */
  command(sql: string): Promise<unknown> {
    return withinDeadline(this.connection, this.timeoutMs, (done) => this.connection.query({ sql }, done));
  }

  /** Fixed SQL is prepared (once per connection, mysql2's cache); VaryingSql goes as a text query, its values quoted by mysql2. */
  private statement(sql: Sql, params: readonly SqlValue[]): Promise<unknown> {
    const values = params as SqlValue[];
    return withinDeadline(this.connection, this.timeoutMs, (done) => {
      if (sql instanceof VaryingSql) this.connection.query({ sql: sql.text, values }, done);
      else this.connection.execute({ sql, values }, done);
    });
  }
}

/**
 * One deadline around everything a statement waits for on its connection (docs/api.md 9): the
 * session settings queued ahead of a new connection's first statement, the PREPARE of one not yet
 * cached, and the execution. mysql2's own `timeout` is armed only once a statement is prepared,
 * so a frozen server held a statement that needed a PREPARE for as long as it stayed frozen.
 * When the deadline passes, the connection is destroyed (whatever it was waiting for can never
 * be told apart from the next statement's answer) and the statement fails as mysql2's timeouts do,
 * an unavailable database.
 */
function withinDeadline(
  connection: PoolConnection,
  ms: number,
  send: (done: (error: unknown, result: unknown) => void) => void,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      connection.destroy();
      reject(Object.assign(new Error(`no answer from the database within ${ms} ms`), { code: 'PROTOCOL_SEQUENCE_TIMEOUT', fatal: true }));
    }, ms);
    send((error, result) => {
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(result);
    });
  });
}
