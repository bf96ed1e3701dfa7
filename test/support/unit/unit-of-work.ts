import type { Database } from '../../../src/database/database';
import { SQLITE_DIALECT } from '../../../src/database/sql-dialect';
import type { SqlExecutor } from '../../../src/database/sql-executor';
import { UnitOfWork } from '../../../src/database/unit-of-work';

const refuse = (): never => {
  throw new Error('no statement is sent in this test: the repositories are faked');
};
const noStatements: SqlExecutor = { select: refuse, execute: refuse, insert: refuse };

/**
 * The real UnitOfWork over a Database whose transactions send no statement, so that a unit test
 * of a service sees which transaction each (faked) repository call ran in, and what ran after the
 * commit.
 */
export function unitOfWork(): UnitOfWork {
  const db = { dialect: SQLITE_DIALECT, transaction: <T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> => work(noStatements) };
  return new UnitOfWork(db as unknown as Database);
}
