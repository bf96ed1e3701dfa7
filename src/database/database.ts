import { Injectable } from '@nestjs/common';
import type { Pool } from 'mysql2/promise';
import { CannotExecuteNotConnectedError, DataSource, QueryRunner } from 'typeorm';
import { isDeadlock } from './database-errors';
import { MYSQL_DIALECT, SQLITE_DIALECT, SqlDialect } from './sql-dialect';

export type SqlValue = string | number | null;
export type Row = Record<string, unknown>;

/** Runs raw statements, alone or inside a transaction. */
export interface SqlExecutor {
  select<T extends Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** For INSERT/UPDATE/DELETE: the number of rows the statement touched. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

const DEADLOCK_ATTEMPTS = 3;

/**
 * The raw-SQL side of the data layer, over TypeORM's DataSource. Hot paths and the
 * multi-statement writes of the repositories go through here; everything else uses TypeORM
 * repositories.
 *
 * Transactions: on MySQL each runs on its own pooled connection and is retried when InnoDB
 * picks it as a deadlock victim; correctness comes from row locks and unique keys, so it holds
 * across any number of instances. They keep InnoDB's REPEATABLE READ: every write transaction
 * of the repositories takes its lock before its first plain read, so its snapshot already
 * holds everything committed by the writers it waited for (and setting another level would
 * cost a round trip per transaction). On SQLite TypeORM shares one connection between all
 * callers, so two interleaved transactions would nest; they are queued here instead (SQLite
 * allows one writer at a time anyway).
 */
@Injectable()
export class Database implements SqlExecutor {
  readonly dialect: SqlDialect;
  private sqliteQueue: Promise<unknown> = Promise.resolve();
  /** mysql2's own pool under TypeORM's driver, for reads without a QueryRunner (see select). */
  private readonly mysqlPool?: Pool;

  constructor(private readonly dataSource: DataSource) {
    this.dialect = dataSource.options.type === 'better-sqlite3' ? SQLITE_DIALECT : MYSQL_DIALECT;
    if (this.dialect.name === 'mysql') {
      this.mysqlPool = (dataSource.driver as unknown as { pool: { promise(): Pool } }).pool.promise();
    }
  }

  /**
   * A read outside any transaction. On MySQL it goes straight to the pool as a prepared
   * statement (binary protocol, parsed once per connection), the way the hot paths want it:
   * no QueryRunner to allocate and release per statement.
   */
  async select<T extends Row>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    if (this.mysqlPool) {
      if (!this.dataSource.isInitialized) throw new CannotExecuteNotConnectedError();
      return (await this.mysqlPool.execute(sql, params as SqlValue[]))[0] as T[];
    }
    return this.dataSource.query(sql, params as SqlValue[]);
  }

  async execute(sql: string, params: readonly SqlValue[] = []): Promise<number> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return (await runner.query(sql, params as SqlValue[], true)).affected ?? 0;
    } finally {
      await runner.release();
    }
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    if (this.dialect.name === 'sqlite') {
      const run = this.sqliteQueue.then(() => this.dataSource.transaction((m) => work(executorOn(m.queryRunner!))));
      this.sqliteQueue = run.catch(() => undefined);
      return run;
    }
    return this.withDeadlockRetry(() => this.dataSource.transaction((m) => work(executorOn(m.queryRunner!))));
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
  };
}
