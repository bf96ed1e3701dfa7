import { describe, expect, it } from 'vitest';
import type { Database } from './database';
import { SQLITE_DIALECT } from './sql-dialect';
import type { SqlExecutor } from './sql-executor';
import { UnitOfWork } from './unit-of-work';

/** A Database whose transaction runs the work `attempts` times (a deadlock's victim runs again), or fails after it. */
function databaseRunning({ attempts = 1, rollback = false } = {}) {
  const options: unknown[] = [];
  const statements: SqlExecutor = { select: async () => [], execute: async () => 1, insert: async () => 7 };
  const db = {
    dialect: SQLITE_DIALECT,
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>, given: unknown): Promise<T> {
      options.push(given);
      for (let n = 1; n < attempts; n++) await work(statements);
      const result = await work(statements);
      if (rollback) throw new Error('rolled back');
      return result;
    },
  };
  return { work: new UnitOfWork(db as unknown as Database), options };
}

describe('UnitOfWork.run', () => {
  it("answers what the work answers, the transaction's statements and dialect in its hands", async () => {
    const { work } = databaseRunning();
    expect(await work.run(async (tx) => [await tx.insert('INSERT'), tx.dialect.name])).toEqual([7, 'sqlite']);
  });

  it('runs what is queued after the commit once the transaction has committed, in order', async () => {
    const { work } = databaseRunning();
    const seen: string[] = [];
    await work.run(async (tx) => {
      tx.afterCommit(() => seen.push('first'));
      tx.afterCommit(() => seen.push('second'));
      seen.push('work');
    });
    expect(seen).toEqual(['work', 'first', 'second']);
  });

  it('runs nothing queued by a transaction that rolls back', async () => {
    const { work } = databaseRunning({ rollback: true });
    const seen: string[] = [];
    await expect(work.run(async (tx) => tx.afterCommit(() => seen.push('effect')))).rejects.toThrow('rolled back');
    expect(seen).toEqual([]);
  });

  it('drops what an attempt undone by a deadlock queued: the effects of the attempt that committed only', async () => {
    const { work } = databaseRunning({ attempts: 3 });
    let attempt = 0;
    const seen: number[] = [];
    await work.run(async (tx) => {
      const mine = ++attempt;
      tx.afterCommit(() => seen.push(mine));
    });
    expect(seen).toEqual([3]);
  });

  it("passes the transaction's isolation on to the database", async () => {
    const { work, options } = databaseRunning();
    await work.run(async () => undefined, { readCommitted: true });
    expect(options).toEqual([{ readCommitted: true }]);
  });
});
