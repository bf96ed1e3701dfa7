import { Database } from '../../database/database';
import { UnitOfWork } from '../../database/unit-of-work';

/**
 * The dispatcher's connections (docs/performance.md): on MySQL a pool of its own
 * (OWN_POOLS.dispatch: a claim, a record, a read of targets or bodies and a release at once),
 * so that its claims and records never wait behind the requests in the main pool, at READ
 * COMMITTED so that the claim's locking reads take no gap locks (which would hold off the
 * inserts of new deliveries); on SQLite the one shared connection. Provided by DispatchModule.
 */
export abstract class DispatchDatabase extends Database {}

/** The dispatcher's transactions (its claims, its records), on its own pool. Provided by DispatchModule. */
export abstract class DispatchWork extends UnitOfWork {}
