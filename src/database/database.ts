import { Injectable, Optional } from '@nestjs/common';
import { createPool, type Pool } from 'mysql2';
import { CannotExecuteNotConnectedError, DataSource, QueryRunner } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { isDeadlock } from './database-errors';
import { MysqlConnections } from './mysql-connections';
import { MYSQL_DIALECT, SQLITE_DIALECT, SqlDialect } from './sql-dialect';
import type { Row, SqlExecutor, SqlValue } from './sql-executor';

const DEADLOCK_ATTEMPTS = 3;

/**
 * The repositories' one way to the database: SQL with `?` placeholders on TypeORM's
 * connections (its DataSource, its driver's pool), alone or in a transaction. Every repository
 * goes through here: the hot reads need prepared statements without a QueryRunner per
 * statement (docs/performance.md), and the writes need row locks and the deadlines below,
 * which TypeORM's Repository API does not give.
 *
 * On MySQL, statements run on mysql2's pool under TypeORM's driver, with the deadlines of
 * MysqlConnections (so an unreachable database answers 503 in bounded time). Transactions are
 * retried when InnoDB picks them as deadlock victims; correctness comes from row locks and
 * unique keys, so it holds across any number of instances. They keep InnoDB's REPEATABLE READ:
 * every write transaction of the repositories takes its lock before its first plain read, so
 * its snapshot already holds everything committed by the writers it waited for.
 *
 * On SQLite, statements go through TypeORM, which shares one connection between all callers,
 * so two interleaved transactions would nest; they are queued here instead (SQLite allows one
 * writer at a time anyway).
 */
@Injectable()
export class Database implements SqlExecutor {
  readonly dialect: SqlDialect;
  private readonly mysql?: MysqlConnections;
  private sqliteQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    config: AppConfig,
    /** A pool of the caller's own (MySQL), its sessions at READ COMMITTED (withOwnPool); TypeORM's when Nest injects. */
    @Optional() pool?: Pool,
  ) {
    this.dialect = config.database.type === 'sqlite' ? SQLITE_DIALECT : MYSQL_DIALECT;
    if (config.database.type === 'mysql') {
      this.mysql = new MysqlConnections(pool ?? (dataSource.driver as unknown as { pool: Pool }).pool, {
        acquireMs: config.database.connectTimeoutMs,
        queryMs: config.database.queryTimeoutMs,
        readCommittedSessions: pool !== undefined,
      });
    }
  }

  /**
   * A Database on `size` connections of its own, for work that must not queue behind the
   * requests in TypeORM's pool (the delivery dispatcher), every transaction at READ COMMITTED
   * (set once per connection). SQLite has one connection, shared: `shared` itself. Closed by
   * `closeOwnPool`.
   */
  static withOwnPool(shared: Database, dataSource: DataSource, config: AppConfig, size: number): Database {
    if (config.database.type !== 'mysql') return shared;
    const driver = dataSource.driver as unknown as {
      createConnectionOptions(options: unknown, credentials: unknown): object;
      options: object;
    };
    const pool = createPool({ ...driver.createConnectionOptions(driver.options, driver.options), connectionLimit: size });
    pool.on('connection', (connection) => connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED'));
    return new Database(dataSource, config, pool);
  }

  /** Ends the pool `withOwnPool` made (nothing for the shared one). */
  async closeOwnPool(): Promise<void> {
    await this.mysql?.closeIfOwn((this.dataSource.driver as unknown as { pool?: Pool }).pool);
  }

  /**
   * On SQLite, reads do not wait their turn behind transactions (reads are most of the traffic):
   * on the one shared connection they may see the writes of a transaction still open, which
   * are lost only if it fails (a database error, rare on a local file). Left so: queuing every
   * read behind every transaction would make the embedded store serial.
   */
  select<T extends Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    if (this.mysql) return this.connectedPool().run((db) => db.select<T>(sql, params));
    return this.dataSource.query(sql, params as SqlValue[]);
  }

  execute(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    if (this.mysql) return this.connectedPool().run((db) => db.execute(sql, params));
    return this.inSqliteTurn(() => this.withSqliteRunner((db) => db.execute(sql, params)));
  }

  insert(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    if (this.mysql) return this.connectedPool().run((db) => db.insert(sql, params));
    return this.inSqliteTurn(() => this.withSqliteRunner((db) => db.insert(sql, params)));
  }

  /**
   * Whether the database answers a `SELECT 1` within `deadlineMs` (/health): a connection and
   * the statement under one deadline, shorter than the statements' own, so that a probe answers
   * in time while the database hangs; the statement, if it still runs, ends at its own.
   */
  async ping(deadlineMs: number): Promise<boolean> {
    if (!this.dataSource.isInitialized) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), deadlineMs);
    });
    try {
      return await Promise.race([this.select('SELECT 1 AS one').then(() => true), late]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * `readCommitted` (MySQL): for a transaction whose locking reads must not take gap locks, such
   * as the queue's claim, which would otherwise hold off every insert of a new due delivery.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: { readCommitted?: boolean } = {}): Promise<T> {
    if (this.mysql) return this.withDeadlockRetry(() => this.connectedPool().transaction(work, options));
    return this.inSqliteTurn(() => this.dataSource.transaction((m) => work(executorOn(m.queryRunner!))));
  }

  /**
   * Independent statements (none needs another's result) in one transaction, for a hot path:
   * on MySQL sent as one multi-statement query, one round trip; on SQLite one by one in its
   * turn. The rows each statement touched. Deadlock victims are retried as transactions are.
   */
  atomically(statements: readonly { sql: string; params: readonly SqlValue[] }[]): Promise<number[]> {
    if (this.mysql) return this.withDeadlockRetry(() => this.connectedPool().script(statements));
    return this.transaction(async (tx) => {
      const touched: number[] = [];
      for (const { sql, params } of statements) touched.push(await tx.execute(sql, params));
      return touched;
    });
  }

  /**
   * SQLite's writes take turns: on TypeORM's one shared connection, a write made while another
   * caller's transaction is open would become part of it (and roll back with it). Inside a
   * transaction, use its `tx`, never this object: a write through here would wait for the
   * transaction it is part of.
   */
  private inSqliteTurn<T>(write: () => Promise<T>): Promise<T> {
    const run = this.sqliteQueue.then(write);
    this.sqliteQueue = run.catch(() => undefined);
    return run;
  }

  /** The pool outlives a destroyed DataSource only as a closed shell: say so as TypeORM would. */
  private connectedPool(): MysqlConnections {
    if (!this.dataSource.isInitialized) throw new CannotExecuteNotConnectedError();
    return this.mysql!;
  }

  private async withSqliteRunner<T>(use: (db: SqlExecutor) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return await use(executorOn(runner));
    } finally {
      await runner.release();
    }
  }

  private async withDeadlockRetry<T>(attempt: () => Promise<T>): Promise<T> {
    for (let n = 1; ; n++) {
      try {
        return await attempt();
      } catch (error) {
        if (n >= DEADLOCK_ATTEMPTS || !isDeadlock(error)) throw error;
      }
    }
  }
}

function executorOn(runner: QueryRunner): SqlExecutor {
  return {
    select: (sql, params = []) => runner.query(sql, params as SqlValue[]),
    execute: async (sql, params = []) => (await runner.query(sql, params as SqlValue[], true)).affected ?? 0,
    insert: async (sql, params = []) => Number((await runner.query(sql, params as SqlValue[], true)).raw),
  };
}
