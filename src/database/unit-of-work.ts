import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor';
import { Database } from './database';
import type { SqlDialect } from './sql-dialect';
import type { SqlExecutor } from './sql-executor';

/**
 * An open transaction as a service hands it to its repositories: their writes (and the reads
 * that must see them, or lock) run on it, and what must follow only a commit is queued on it.
 */
export interface Transaction extends SqlExecutor {
  readonly dialect: SqlDialect;
  /** Who makes the change (AuditTrail records it); undefined for work that records no change of anyone's. */
  readonly actor?: Actor;
  /**
   * Runs `effect` once the transaction has committed (waking a dispatcher, counting a metric):
   * never after a rollback, nor for an attempt undone by a deadlock and run again.
   */
  afterCommit(effect: () => void): void;
}

/**
 * The one way to open a transaction (vendure's TransactionalConnection): a service runs its
 * change in `run`, passes the Transaction to each repository it writes through, and whatever
 * must be written with the change (the audit entry, an event through the Outbox) joins it. The
 * transaction is Database's: on MySQL a connection of the pool, retried whole when InnoDB picks
 * it as a deadlock victim (so `work` may run more than once: it must not have effects outside the
 * transaction but through `afterCommit`); on SQLite in its turn on the one shared connection.
 * Repositories never open one. The one other transaction is ingest's group commit, a script sent
 * in one round trip (Database.atomically, docs/performance.md).
 */
@Injectable()
export class UnitOfWork {
  constructor(private readonly db: Database) {}

  /**
   * `actor`: who makes the change, for its audit entry. `readCommitted` (MySQL): the transaction's
   * locking reads take no gap locks (the queue's claim, a recovery's batches), whatever the pool's
   * sessions are set to.
   */
  async run<T>(work: (tx: Transaction) => Promise<T>, options: { actor?: Actor; readCommitted?: boolean } = {}): Promise<T> {
    let effects: (() => void)[] = [];
    const result = await this.db.transaction(
      (statements) => {
        // A deadlock's victim runs again from here: what its undone attempt queued goes with it.
        effects = [];
        return work(transactionOn(statements, this.db.dialect, effects, options.actor));
      },
      { readCommitted: options.readCommitted },
    );
    for (const effect of effects) effect();
    return result;
  }
}

function transactionOn(statements: SqlExecutor, dialect: SqlDialect, effects: (() => void)[], actor: Actor | undefined): Transaction {
  return {
    dialect,
    actor,
    select: (sql, params) => statements.select(sql, params),
    execute: (sql, params) => statements.execute(sql, params),
    insert: (sql, params) => statements.insert(sql, params),
    afterCommit: (effect) => effects.push(effect),
  };
}
