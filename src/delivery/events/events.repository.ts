import { Injectable } from '@nestjs/common';
import type { SealedSecret } from '../../crypto/secret-box';
import { Database } from '../../database/database';
import { GroupCommit } from '../../database/group-commit';
import { Column, rowReader } from '../../database/row-reader';
import { parameterRows, placeholders, type Row, type ScriptStatement, type SqlValue, varying } from '../../database/sql-executor';
import { isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation } from '../../database/database-errors';
import { sqlTimestamp } from '../../database/sql-dialect';
import type { Transaction } from '../../database/unit-of-work';
import { WebhookSql } from '../../webhooks/webhook-sql';
import type { HandedDelivery, Handoff } from '../dispatch-signal';
import { HealthSql } from '../webhook-health-sql';
import type { EventTrace } from '../event-trace';
import { IngestDatabase } from './ingest-database';
import { sealedToJson } from './sealed-json';

// The Database executor: ingest is a measured hot path (W6): the events that arrive together go
// in one transaction, sent to MySQL as one query on ingest's own connection (GroupCommit,
// Database.atomically: the one transaction that no UnitOfWork opens). The other writes run in
// their service's unit of work.

export interface NewEvent {
  readonly id: string;
  readonly organizationId: number;
  readonly type: string;
  readonly idempotencyKey: string | undefined;
  readonly requestHash: string;
  readonly payload: SealedSecret;
  /** The body's size in bytes (events.body_bytes: what a dispatcher holding it spends of DELIVERY_BUFFER_MB). */
  readonly bodyBytes: number;
  readonly createdAt: Date;
  /** docs/api.md 10.17: its trace, the span of its acceptance, and the producer's tracestate. */
  readonly trace: EventTrace;
}

/** Which webhooks of the organization an event written with a change goes to (insertIn). */
export interface FanOut {
  /** Only the enabled webhooks but this one (webhook.disabled, docs/api.md 10.10); by default every webhook. */
  readonly onlyEnabledExcept?: number;
}

/**
 * What ingest writes in one transaction (insert): the events of one request (one event, or a
 * batch's in the order sent, docs/api.md 10.1.1), and the claim of this instance's dispatcher
 * for the deliveries it may take at once (the common path of POST /events).
 */
interface Ingested {
  readonly events: readonly NewEvent[];
  readonly handoff?: Handoff;
}

/** An event written: its deliveries, and those handed to this instance's dispatcher. */
export interface InsertedEvent {
  readonly deliveries: number;
  readonly handed: HandedDelivery[];
}

/** An idempotency key of an organization. */
export interface IdempotencyKeyOf {
  readonly organizationId: number;
  readonly idempotencyKey: string;
}

/** An event found under an idempotency key. */
export interface KeyedEvent {
  readonly id: string;
  readonly requestHash: string;
  readonly deliveryCount: number;
  readonly createdAt: Date;
}

/**
 * A group commit of ingest carries at most this much of sealed bodies (well within
 * max_allowed_packet) and this many events (its fan-out's derived table is one compound SELECT
 * of a part per event: parameterRows); a larger batch goes alone.
 */
const GROUP_MAX_BYTES = 4 * 1024 * 1024;
const GROUP_MAX_EVENTS = 64;

const ENABLED = WebhookSql.enabled;

/**
 * An event's fan-out as written with a change (the Outbox, insertIn): one delivery per webhook of
 * the organization that takes the event's type (docs/api.md 10.13), pending and due now, or failed
 * at once for a disabled webhook (docs/api.md 10.10). Its parameters: fanOutParams.
 */
export function fanOutSql({ onlyEnabledExcept }: FanOut): string {
  return `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT ?, ?, ?, ${WebhookSql.id}, CASE WHEN ${ENABLED} THEN 'pending' ELSE 'failed' END, 0, CASE WHEN ${ENABLED} THEN ? END, NULL, ?
      FROM ${WebhookSql.withSource}
     WHERE ${WebhookSql.organization} = ? AND ${WebhookSql.takes}${onlyEnabledExcept === undefined ? '' : ` AND ${ENABLED} AND ${WebhookSql.id} <> ?`}`;
}

function fanOutParams(event: NewEvent, { onlyEnabledExcept }: FanOut): SqlValue[] {
  const at = sqlTimestamp(event.createdAt);
  return [
    event.id,
    event.organizationId,
    event.type,
    at,
    at,
    event.organizationId,
    ...WebhookSql.takesParams(event.type),
    ...(onlyEnabledExcept === undefined ? [] : [onlyEnabledExcept]),
  ];
}

/** A group's events as its fan-out reads them: their order in the group, what each is, and its handoff (lease and token, or nulls). */
const GROUP_COLUMNS = ['n', 'id', 'org', 'type', 'quoted_type', 'quoted_wildcard', 'at', 'lease_until', 'token'];

/**
 * The fan-out of every event of a group commit, in one INSERT … SELECT over a derived table of
 * the events (GROUP_COLUMNS): the deliveries of fanOutSql, and those the local dispatcher may take
 * at once (a handed-over event's, to a webhook enabled, without a rate limit, not ordered (its
 * deliveries wait for their turn in the queue, docs/api.md 10.18), its breaker closed, not excluded) inserted claimed with its token, due again at the lease's end. The exclusions of
 * the group's handoffs together: one left out by any stays in the queue, for the scan to find.
 * Inserted in the order of the events (and of the webhooks for each), so that delivery ids follow
 * the order a batch was sent in (docs/api.md 10.18). Its parameters: groupFanOutParams.
 */
function groupFanOutSql(events: number, excluded: number): string {
  const notExcluded = excluded > 0 ? ` AND ${WebhookSql.id} NOT IN (${placeholders(excluded)})` : '';
  const handedOver = `b.token IS NOT NULL AND ${ENABLED} AND ${WebhookSql.rateLimit} IS NULL AND ${WebhookSql.ordered} = 0 AND ${HealthSql.breakerClosed}${notExcluded}`;
  return `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT b.id, b.org, b.type, ${WebhookSql.id}, CASE WHEN ${ENABLED} THEN 'pending' ELSE 'failed' END, 0,
           CASE WHEN NOT (${ENABLED}) THEN NULL WHEN ${handedOver} THEN b.lease_until ELSE b.at END, CASE WHEN ${handedOver} THEN b.token END, b.at
      FROM ${WebhookSql.withSource} ${HealthSql.joinedOn(WebhookSql.id)}
      JOIN (${parameterRows(GROUP_COLUMNS, events)}) b ON b.org = ${WebhookSql.organization}
     WHERE ${WebhookSql.takesOf('b.quoted_type', 'b.quoted_wildcard')}
     ORDER BY b.n, ${WebhookSql.id}`;
}

function groupFanOutParams(group: readonly Ingested[], excluded: readonly number[]): SqlValue[] {
  const rows = group.flatMap(({ events, handoff }) =>
    events.map((event) => [
      event.id,
      event.organizationId,
      event.type,
      ...WebhookSql.takesParams(event.type),
      sqlTimestamp(event.createdAt),
      handoff ? sqlTimestamp(handoff.leaseUntil) : null,
      handoff?.token ?? null,
    ]),
  );
  return [...excluded, ...excluded, ...rows.flatMap((row, n) => [n, ...row])];
}

/** The events in one INSERT. */
const insertEvents = (events: readonly NewEvent[]): ScriptStatement => ({
  sql: `INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, payload, body_bytes, created_at, trace_id, trace_span_id, trace_state)
    VALUES ${events.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
  params: events.flatMap((event) => [
    event.id,
    event.organizationId,
    event.type,
    event.idempotencyKey ?? null,
    event.requestHash,
    sealedToJson(event.payload),
    event.bodyBytes,
    sqlTimestamp(event.createdAt),
    event.trace.traceId,
    event.trace.spanId,
    event.trace.traceState ?? null,
  ]),
});

/** The events of `ids` as written, each with its deliveries (a row with a null id for an event without any). */
const writtenSql = (ids: number): string =>
  `SELECT e.id AS eventId, d.id AS id, d.webhook_id AS webhookId, d.claim_token AS claimToken
     FROM events e LEFT JOIN deliveries d ON d.event_id = e.id WHERE e.id IN (${placeholders(ids)})`;
const readWritten = rowReader({
  eventId: Column.text,
  id: Column.nullable(Column.int),
  webhookId: Column.nullable(Column.int),
  claimToken: Column.nullable(Column.text),
});

/** Each event of `ingested` as the rows of writtenSql show it: its deliveries, and those claimed with its handoff's token. */
function insertedOf({ events, handoff }: Ingested, written: readonly Row[]): InsertedEvent[] {
  const deliveriesOf = new Map<string, ReturnType<typeof readWritten>[]>();
  for (const row of written.map(readWritten)) {
    if (row.id === null) continue;
    const deliveries = deliveriesOf.get(row.eventId);
    if (deliveries === undefined) deliveriesOf.set(row.eventId, [row]);
    else deliveries.push(row);
  }
  return events.map(({ id }) => {
    const deliveries = deliveriesOf.get(id) ?? [];
    return {
      deliveries: deliveries.length,
      handed: deliveries
        .filter(({ claimToken }) => handoff !== undefined && claimToken === handoff.token)
        .map((row) => ({ id: row.id!, webhookId: row.webhookId! })),
    };
  });
}

/** An event under an idempotency key, as findByIdempotencyKey reads it (readKeyed). */
const KEYED_COLUMNS = `e.id AS id, e.request_hash AS requestHash, e.created_at AS createdAt,
       (SELECT COUNT(*) FROM deliveries d WHERE d.event_id = e.id) AS deliveryCount`;
const readKeyed = rowReader({ id: Column.text, requestHash: Column.text, deliveryCount: Column.int, createdAt: Column.moment });
const readKeyOf = rowReader({ organizationId: Column.int, idempotencyKey: Column.text });
/** A count per organization. */
const readCount = rowReader({ organizationId: Column.int, count: Column.int });

@Injectable()
export class EventsRepository {
  private readonly ingest: GroupCommit<Ingested, InsertedEvent[]>;

  constructor(
    private readonly db: Database,
    private readonly ingestDb: IngestDatabase,
  ) {
    this.ingest = new GroupCommit((group) => this.writeGroup(group), {
      maxItems: GROUP_MAX_EVENTS,
      countOf: ({ events }) => events.length,
      maxBytes: GROUP_MAX_BYTES,
      bytesOf: ({ events }) => events.reduce((bytes, { payload }) => bytes + payload.ciphertext.length, 0),
    });
  }

  /**
   * The events and their deliveries, committed together with the other events accepted at the
   * same moment (GroupCommit): all of them or none. 'duplicate' when an idempotency key is taken;
   * 'unknown organization' when an organization does not exist (its foreign key says so). A
   * group whose script committed though its answer was lost (the connection cut after COMMIT) is
   * written again request by request, and each then finds its own ids taken: its events are
   * written, their deliveries read back. Events written alone whose answer was lost are looked
   * for the same way (through the pool, not ingest's connection): found, they are written; else
   * the database's error stands.
   */
  async insert(events: readonly NewEvent[], handoff?: Handoff): Promise<InsertedEvent[] | 'duplicate' | 'unknown organization'> {
    const ingested = { events, handoff };
    try {
      return await this.ingest.submit(ingested);
    } catch (error) {
      if (isUniqueViolation(error)) return (await this.written(ingested)) ?? 'duplicate';
      if (isForeignKeyViolation(error)) return 'unknown organization';
      if (!isDatabaseUnavailable(error)) throw error;
      const written = await this.written(ingested).catch(() => undefined);
      if (written === undefined) throw error;
      return written;
    }
  }

  /** The same, inside the caller's transaction: an event written with the change that causes it (docs/api.md 10.12, the Outbox). */
  async insertIn(tx: Transaction, event: NewEvent, fanOut: FanOut = {}): Promise<{ deliveries: number }> {
    const { sql, params } = insertEvents([event]);
    await tx.execute(sql, params);
    return { deliveries: await tx.execute(varying(fanOutSql(fanOut)), fanOutParams(event, fanOut)) };
  }

  /**
   * A group of events in one transaction (ingest's connection is at READ COMMITTED: the
   * fan-out's SELECT reads without locks, so it takes no gap lock that would hold off the
   * dispatcher): the organizations' source rows locked in share mode first, in id order, so
   * that a webhook write (which locks it exclusively) is wholly before or after the group and
   * no delivery is inserted for a webhook a concurrent delete is removing; the events in one
   * INSERT, their deliveries in another, then read back with those handed over. Four statements
   * however many events, sent in one round trip.
   */
  private async writeGroup(group: readonly Ingested[]): Promise<InsertedEvent[][]> {
    const events = group.flatMap((ingested) => ingested.events);
    const organizations = [...new Set(events.map(({ organizationId }) => organizationId))].sort((a, b) => a - b);
    const excluded = [...new Set(group.flatMap(({ handoff }) => handoff?.exclude ?? []))];
    const [, , , written] = await this.ingestDb.atomically([
      {
        sql: WebhookSql.sourcesInShareMode(organizations.length, this.ingestDb.dialect.forShare),
        params: organizations,
        rows: true,
      },
      insertEvents(events),
      { sql: groupFanOutSql(events.length, excluded.length), params: groupFanOutParams(group, excluded) },
      { sql: writtenSql(events.length), params: events.map(({ id }) => id), rows: true },
    ]);
    return group.map((ingested) => insertedOf(ingested, written as Row[]));
  }

  /**
   * A `webhook.test` event and its one delivery, to that webhook only (docs/api.md 10.7), in the
   * caller's transaction (which holds the webhook's row in share mode first: WebhookTestService);
   * the delivery's id.
   */
  async insertForWebhook(tx: Transaction, event: NewEvent, webhookId: number): Promise<number> {
    const at = sqlTimestamp(event.createdAt);
    const { sql, params } = insertEvents([event]);
    await tx.execute(sql, params);
    return tx.insert(
      `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
      [event.id, event.organizationId, event.type, webhookId, at, at],
    );
  }

  /**
   * The events as their group wrote them, undefined when there are none (the unique key taken is
   * then an idempotency key's: an id is never reused).
   */
  private async written(ingested: Ingested): Promise<InsertedEvent[] | undefined> {
    const ids = ingested.events.map(({ id }) => id);
    const rows = await this.db.select(varying(writtenSql(ids.length)), ids);
    return rows.length === 0 ? undefined : insertedOf(ingested, rows);
  }

  async findByIdempotencyKey(organizationId: number, key: string): Promise<KeyedEvent | undefined> {
    const [row] = await this.db.select(`SELECT ${KEYED_COLUMNS} FROM events e WHERE e.organization_id = ? AND e.idempotency_key = ?`, [
      organizationId,
      key,
    ]);
    return row && readKeyed(row);
  }

  /** The events found under any of these keys (a batch's, docs/api.md 10.1.1), each with its organization and key. */
  async findByIdempotencyKeys(keys: readonly IdempotencyKeyOf[]): Promise<(KeyedEvent & IdempotencyKeyOf)[]> {
    const rows = await this.db.select(
      varying(`SELECT e.organization_id AS organizationId, e.idempotency_key AS idempotencyKey, ${KEYED_COLUMNS}
                 FROM events e WHERE ${keys.map(() => '(e.organization_id = ? AND e.idempotency_key = ?)').join(' OR ')}`),
      keys.flatMap(({ organizationId, idempotencyKey }) => [organizationId, idempotencyKey]),
    );
    return rows.map((row) => ({ ...readKeyed(row), ...readKeyOf(row) }));
  }

  /** Frees expired idempotency keys (older than their window) for new events. */
  async forgetIdempotencyKeys(eventIds: readonly string[]): Promise<void> {
    await this.db.execute(varying(`UPDATE events SET idempotency_key = NULL WHERE id IN (${placeholders(eventIds.length)})`), eventIds);
  }

  /**
   * The organizations' pending deliveries (docs/api.md 10.10's backpressure): one range of
   * ix_deliveries_webhook_lane_due per webhook; in the caller's transaction when given one. An
   * organization without any is not in the map.
   */
  async countPending(organizationIds: readonly number[], tx?: Transaction): Promise<Map<number, number>> {
    const rows = await (tx ?? this.db).select(
      varying(`SELECT ${WebhookSql.organization} AS organizationId, COUNT(*) AS count
                 FROM ${WebhookSql.withSource} JOIN deliveries d ON d.webhook_id = ${WebhookSql.id} AND d.state = 'pending'
                WHERE ${WebhookSql.organization} IN (${placeholders(organizationIds.length)}) GROUP BY ${WebhookSql.organization}`),
      organizationIds,
    );
    return new Map(rows.map(readCount).map(({ organizationId, count }) => [organizationId, count]));
  }

  /**
   * The pending deliveries these events would add to each organization's now (docs/api.md
   * 10.1.1, the backpressure of a batch): one per enabled webhook that takes an event's type. The
   * events are counted by organization and type, so the derived table has a row for each pair.
   */
  async pendingAddedBy(events: readonly Pick<NewEvent, 'organizationId' | 'type'>[]): Promise<Map<number, number>> {
    const pairs = new Map<string, { organizationId: number; type: string; events: number }>();
    for (const { organizationId, type } of events) {
      const pair = JSON.stringify([organizationId, type]);
      const counted = pairs.get(pair) ?? { organizationId, type, events: 0 };
      pairs.set(pair, { ...counted, events: counted.events + 1 });
    }
    const rows = await this.db.select(
      varying(`SELECT ${WebhookSql.organization} AS organizationId, SUM(b.n) AS count
                 FROM ${WebhookSql.withSource}
                 JOIN (${parameterRows(['org', 'quoted_type', 'quoted_wildcard', 'n'], pairs.size)}) b ON b.org = ${WebhookSql.organization}
                WHERE ${ENABLED} AND ${WebhookSql.takesOf('b.quoted_type', 'b.quoted_wildcard')}
                GROUP BY ${WebhookSql.organization}`),
      [...pairs.values()].flatMap(({ organizationId, type, events: n }) => [organizationId, ...WebhookSql.takesParams(type), n]),
    );
    return new Map(rows.map(readCount).map(({ organizationId, count }) => [organizationId, count]));
  }

  /**
   * Retention (docs/api.md 10.8): deletes up to `batch` events created before `before`, with
   * their deliveries and attempts (foreign keys cascade). Returns how many events went.
   */
  async pruneBatch(before: Date, batch: number): Promise<number> {
    const rows = await this.db.select('SELECT id FROM events WHERE created_at < ? ORDER BY created_at LIMIT ?', [
      sqlTimestamp(before),
      batch,
    ]);
    if (rows.length === 0) return 0;
    return this.db.execute(
      varying(`DELETE FROM events WHERE id IN (${placeholders(rows.length)})`),
      rows.map((row) => Column.text(row.id)),
    );
  }
}
