import { Database } from '../../database/database';

/**
 * The dispatcher's connections (docs/performance.md): on MySQL a pool of its own, so that its
 * claims and records never wait behind the requests in TypeORM's pool, at READ COMMITTED so
 * that the claim's locking reads take no gap locks (which would hold off the inserts of new
 * deliveries); on SQLite the one shared connection. Provided by DeliveryModule.
 */
export abstract class DispatchDatabase extends Database {}

/** Connections of the dispatcher's pool: a claim, a record, an adoption and a health update at once. */
export const DISPATCH_POOL_SIZE = 4;
