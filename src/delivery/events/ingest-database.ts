import { Database } from '../../database/database';

/**
 * Ingest's connection (docs/performance.md): on MySQL the one connection of OWN_POOLS.ingest
 * that takes multi-statement queries (so that a group of events goes in one round trip, and
 * no other connection can be handed a stacked query), at READ COMMITTED so that the fan-out's
 * SELECT takes no gap locks; on SQLite the one shared connection. Provided by EventsModule.
 */
export abstract class IngestDatabase extends Database {}
