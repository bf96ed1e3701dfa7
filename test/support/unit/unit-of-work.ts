import type { Database } from '../../../src/database/database';
import { SQLITE_DIALECT } from '../../../src/database/sql-dialect';
import type { SqlExecutor } from '../../../src/database/sql-executor';
import { UnitOfWork } from '../../../src/database/unit-of-work';

/**
 * The real UnitOfWork over a Database that runs each transaction on `statements` (by default,
 * none may be sent: the repositories are faked): a unit test sees which transaction each
 * repository call ran in, and what ran after the commit. `attempts` > 1 runs the work again, as a
 * deadlock's victim is.
 */
export function unitOfWorkOn(statements: SqlExecutor = noStatements, { attempts = 1 } = {}): UnitOfWork {
  const db = {
    dialect: SQLITE_DIALECT,
    async transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
      for (let n = 1; n < attempts; n++) await work(statements);
      return work(statements);
    },
  };
  return new UnitOfWork(db as unknown as Database);
}

const refuse = (): never => {
  throw new Error('no statement is sent in this test');
};
const noStatements: SqlExecutor = { select: refuse, execute: refuse, insert: refuse };
