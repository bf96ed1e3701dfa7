import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { createPool, type Pool } from 'mysql2';
import { CannotExecuteNotConnectedError, DataSource, QueryRunner } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { isDeadlock } from './database-errors';
import { MysqlConnections, sessionSettings } from './mysql-connections';
import { MYSQL_DIALECT, SQLITE_DIALECT, SqlDialect } from './sql-dialect';
import { type Row, type ScriptResult, type ScriptStatement, type Sql, type SqlExecutor, type SqlValue, textOf } from './sql-executor';

const DEADLOCK_ATTEMPTS = 3;

/**
 * docs/api.md 9: the prepared statements one instance may hold on the MySQL server, over all its
 * connections (the server's max_prepared_stmt_count, 16 382 by default, is shared by every client).
 */
export const PREPARED_STATEMENTS_PER_INSTANCE = 256;

/** The pools besides the main one (DB_POOL_SIZE), by their connections: the dispatcher's, and ingest's one multi-statement connection. */
export const OWN_POOLS = { dispatch: 4, ingest: 1 } as const;

/** A pool of connections of its own (MySQL), and how its sessions are set. */
export interface PoolOptions {
  readonly connections: number;
  /** Every session at READ COMMITTED: locking reads take no gap locks, plain reads see what is committed. */
  readonly readCommitted?: boolean;
  /** The one connection that sends a transaction as one multi-statement query (`atomically`). */
  readonly multipleStatements?: boolean;
}

export const POOL_OPTIONS = Symbol('POOL_OPTIONS');

/**
 * The repositories' one way to the database: SQL with `?` placeholders, alone or in a
 * transaction (which a service opens through UnitOfWork). Every repository goes through here:
 * the hot reads need prepared statements without a QueryRunner per statement
 * (docs/performance.md), and the writes need row locks and the deadlines below, which TypeORM's
 * Repository API does not give.
 *
 * On MySQL, statements run on mysql2 pools of our own (the main one of DB_POOL_SIZE
 * connections, and those of OWN_POOLS), with the deadlines of MysqlConnections (so an
 * unreachable database answers 503 in bounded time) and the session settings of docs/api.md 9:
 * `sql_mode` pinned, lock waits shorter than the statement deadline, multi-statement mode only
 * on ingest's connection, and mysql2's cache of prepared statements bounded so that the
 * instance holds at most PREPARED_STATEMENTS_PER_INSTANCE (SQL whose text varies goes as text,
 * VaryingSql, and is never prepared). TypeORM keeps a pool of its own for the migrations.
 * Transactions are retried when InnoDB picks them as deadlock victims; correctness comes from
 * row locks and unique keys, so it holds across any number of instances. They keep InnoDB's
 * REPEATABLE READ unless the pool says otherwise: every write transaction of the repositories
 * takes its lock before its first plain read, so its snapshot already holds everything
 * committed by the writers it waited for.
 *
 * On SQLite, statements go through TypeORM, which shares one connection between all callers,
 * so two interleaved transactions would nest; they are queued here instead (SQLite allows one
 * writer at a time anyway).
 */
@Injectable()
export class Database implements SqlExecutor, OnApplicationShutdown {
  readonly dialect: SqlDialect;
  private readonly mysql?: MysqlConnections;
  private sqliteQueue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dataSource: DataSource,
    config: AppConfig,
    /** A pool other than the main one (Database.open); the main one when Nest injects. */
    @Optional() @Inject(POOL_OPTIONS) options?: PoolOptions,
  ) {
    this.dialect = config.database.type === 'sqlite' ? SQLITE_DIALECT : MYSQL_DIALECT;
    if (config.database.type === 'mysql') {
      // TypeORM's own sessions (the migrations') are set like ours.
      if (options === undefined) pinSessions(typeormPool(dataSource), sessionSettings(config.database.queryTimeoutMs, false));
      const pool = options ?? { connections: config.database.poolSize };
      this.mysql = new MysqlConnections(openPool(dataSource, config, pool), {
        acquireMs: config.database.connectTimeoutMs,
        queryMs: config.database.queryTimeoutMs,
        readCommittedSessions: pool.readCommitted === true,
        multipleStatements: pool.multipleStatements === true,
      });
    }
  }

  /**
   * A Database on a pool of its own (MySQL), for work that must not queue behind the requests
   * of the main pool (the delivery dispatcher) or that needs a session of its own kind (ingest's
   * multi-statement connection). SQLite has one connection, shared: `shared` itself. Closed by
   * `close`.
   */
  static open(shared: Database, dataSource: DataSource, config: AppConfig, options: PoolOptions): Database {
    return config.database.type === 'mysql' ? new Database(dataSource, config, options) : shared;
  }

  /** Ends the pool (MySQL; TypeORM closes SQLite's connection). */
  async close(): Promise<void> {
    await this.mysql?.close();
  }

  /** The main pool ends with the application, after the dispatcher's last records (its beforeApplicationShutdown). */
  async onApplicationShutdown(): Promise<void> {
    await this.close();
  }

  /**
   * On SQLite, reads do not wait their turn behind transactions (reads are most of the traffic):
   * on the one shared connection they may see the writes of a transaction still open, which
   * are lost only if it fails (a database error, rare on a local file). Left so: queuing every
   * read behind every transaction would make the embedded store serial.
   */
  select<T extends Row>(sql: Sql, params: readonly SqlValue[] = []): Promise<T[]> {
    if (this.mysql) return this.connectedPool().run((db) => db.select<T>(sql, params));
    return this.dataSource.query(textOf(sql), params as SqlValue[]);
  }

  execute(sql: Sql, params: readonly SqlValue[] = []): Promise<number> {
    if (this.mysql) return this.connectedPool().run((db) => db.execute(sql, params));
    return this.inSqliteTurn(() => this.withSqliteRunner((db) => db.execute(sql, params)));
  }

  insert(sql: Sql, params: readonly SqlValue[] = []): Promise<number> {
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
   * UnitOfWork.run's transaction (nothing else opens one: eslint's no-restricted-syntax outside
   * database/). `readCommitted` (MySQL): for a transaction whose locking reads must not take gap
   * locks, such as the queue's claim, which would otherwise hold off every insert of a new due
   * delivery.
   */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>, options: { readCommitted?: boolean } = {}): Promise<T> {
    if (this.mysql) return this.withDeadlockRetry(() => this.connectedPool().transaction(work, options));
    return this.inSqliteTurn(() => this.dataSource.transaction((m) => work(executorOn(m.queryRunner!))));
  }

  /**
   * Independent statements (none needs another's result) in one transaction, for a hot path:
   * on ingest's multi-statement connection sent as one query, one round trip; elsewhere one by
   * one in a transaction (SQLite: in its turn). What each gave (rows, or rows touched).
   * Deadlock victims are retried as transactions are.
   */
  atomically(statements: readonly ScriptStatement[]): Promise<ScriptResult[]> {
    if (this.mysql?.multipleStatements) return this.withDeadlockRetry(() => this.connectedPool().script(statements));
    return this.transaction(async (tx) => {
      const results: ScriptResult[] = [];
      for (const { sql, params, rows } of statements) results.push(rows ? await tx.select(sql, params) : await tx.execute(sql, params));
      return results;
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
    select: (sql, params = []) => runner.query(textOf(sql), params as SqlValue[]),
    execute: async (sql, params = []) => (await runner.query(textOf(sql), params as SqlValue[], true)).affected ?? 0,
    insert: async (sql, params = []) => Number((await runner.query(textOf(sql), params as SqlValue[], true)).raw),
  };
}

/**
 * A mysql2 pool with TypeORM's connection options (the URL, the time zone, the charset), each
 * session set as docs/api.md 9 says when it opens, and mysql2's cache of prepared statements
 * bounded so that all the instance's pools together hold at most PREPARED_STATEMENTS_PER_INSTANCE.
 */
function openPool(dataSource: DataSource, config: AppConfig, options: PoolOptions): Pool {
  if (config.database.type !== 'mysql') throw new Error('openPool is for MySQL');
  const driver = dataSource.driver as unknown as MysqlDriver;
  const connections = config.database.poolSize + OWN_POOLS.dispatch + OWN_POOLS.ingest;
  const pool = createPool({
    ...driver.createConnectionOptions(driver.options, driver.options),
    connectionLimit: options.connections,
    multipleStatements: options.multipleStatements === true,
    maxPreparedStatements: Math.max(1, Math.floor(PREPARED_STATEMENTS_PER_INSTANCE / connections)),
  });
  pinSessions(pool, sessionSettings(config.database.queryTimeoutMs, options.readCommitted === true));
  return pool;
}

interface MysqlDriver {
  pool: Pool;
  options: object;
  createConnectionOptions(options: unknown, credentials: unknown): object;
}

const typeormPool = (dataSource: DataSource): Pool => (dataSource.driver as unknown as MysqlDriver).pool;

/**
 * Sets every session of `pool` with `settings` the first time it is handed out, ahead of the
 * caller's first statement (mysql2 runs a connection's commands in order); a session that
 * cannot be set is not used. For TypeORM's pool too, whose first connection opens before
 * anyone can listen.
 */
function pinSessions(pool: Pool, settings: readonly string[]): void {
  const set = new WeakSet<object>();
  pool.on('acquire', (connection) => {
    if (set.has(connection)) return;
    set.add(connection);
    for (const sql of settings) connection.query(sql, (error: unknown) => error && connection.destroy());
  });
}
