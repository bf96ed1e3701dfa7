import { Injectable } from '@nestjs/common';
import type { SealedSecret } from '../../crypto/secret-box';
import { Database } from '../../database/database';
import { GroupCommit } from '../../database/group-commit';
import { Column, rowReader } from '../../database/row-reader';
import { placeholders, type Row, type ScriptStatement, type SqlValue, varying } from '../../database/sql-executor';
import { isDatabaseUnavailable, isForeignKeyViolation, isUniqueViolation } from '../../database/database-errors';
import { sqlTimestamp } from '../../database/sql-dialect';
import type { Transaction } from '../../database/unit-of-work';
import { WebhookSql } from '../../webhooks/webhook-sql';
import type { HandedDelivery, Handoff } from '../dispatch-signal';
import { HealthSql } from '../webhook-health-sql';
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
}

/** Which webhooks of the organization an event goes to. */
export interface FanOut {
  /** Deliveries inserted already claimed by this instance's dispatcher (the common path of POST /events). */
  readonly handoff?: Handoff;
  /** Only the enabled webhooks but this one (webhook.disabled, docs/api.md 10.10); by default every webhook. */
  readonly onlyEnabledExcept?: number;
}

/** An event written: its deliveries, and those handed to this instance's dispatcher. */
export interface InsertedEvent {
  readonly deliveries: number;
  readonly handed: HandedDelivery[];
}

/** An event found under an idempotency key. */
export interface KeyedEvent {
  readonly id: string;
  readonly requestHash: string;
  readonly deliveryCount: number;
  readonly createdAt: Date;
}

/** A group commit of ingest carries at most this much of sealed bodies (well within max_allowed_packet). */
const GROUP_MAX_BYTES = 4 * 1024 * 1024;
const GROUP_MAX_EVENTS = 64;

const ENABLED = WebhookSql.enabled;

/**
 * The fan-out's INSERT … SELECT: one delivery per webhook of the organization that takes the
 * event's type (docs/api.md 10.13), pending and due now, or failed at once for a disabled
 * webhook (docs/api.md 10.10); with a handoff, those the dispatcher may take at once (enabled,
 * no rate limit, not ordered, the breaker closed, not excluded) are inserted claimed by it (due
 * again at the lease's end). Its parameters: fanOutParams.
 */
export function fanOutSql({ handoff, onlyEnabledExcept }: FanOut): string {
  const excluded = handoff && handoff.exclude.length > 0 ? ` AND ${WebhookSql.id} NOT IN (${placeholders(handoff.exclude.length)})` : '';
  const handedOver = handoff
    ? `${ENABLED} AND ${WebhookSql.rateLimit} IS NULL AND ${WebhookSql.ordered} = 0 AND ${HealthSql.breakerClosed}${excluded}`
    : undefined;
  const due = handedOver ? `CASE WHEN NOT (${ENABLED}) THEN NULL WHEN ${handedOver} THEN ? ELSE ? END` : `CASE WHEN ${ENABLED} THEN ? END`;
  const token = handedOver ? `CASE WHEN ${handedOver} THEN ? END` : 'NULL';
  return `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, claim_token, created_at)
    SELECT ?, ?, ?, ${WebhookSql.id}, CASE WHEN ${ENABLED} THEN 'pending' ELSE 'failed' END, 0, ${due}, ${token}, ?
      FROM ${WebhookSql.withSource}${handoff ? ` ${HealthSql.joinedOn(WebhookSql.id)}` : ''}
     WHERE ${WebhookSql.organization} = ? AND ${WebhookSql.takes}${onlyEnabledExcept === undefined ? '' : ` AND ${ENABLED} AND ${WebhookSql.id} <> ?`}`;
}

function fanOutParams(event: NewEvent, { handoff, onlyEnabledExcept }: FanOut): SqlValue[] {
  const at = sqlTimestamp(event.createdAt);
  const exclude = handoff?.exclude ?? [];
  const due = handoff ? [...exclude, sqlTimestamp(handoff.leaseUntil), at] : [at];
  return [
    event.id,
    event.organizationId,
    event.type,
    ...due,
    ...(handoff ? [...exclude, handoff.token] : []),
    at,
    event.organizationId,
    ...WebhookSql.takesParams(event.type),
    ...(onlyEnabledExcept === undefined ? [] : [onlyEnabledExcept]),
  ];
}

const INSERT_EVENTS =
  'INSERT INTO events (id, organization_id, type, idempotency_key, request_hash, payload, body_bytes, created_at) VALUES';
const EVENT_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?)';

const insertEvent = (event: NewEvent): { sql: string; params: SqlValue[] } => ({
  sql: `${INSERT_EVENTS} ${EVENT_VALUES}`,
  params: [
    event.id,
    event.organizationId,
    event.type,
    event.idempotencyKey ?? null,
    event.requestHash,
    sealedToJson(event.payload),
    event.bodyBytes,
    sqlTimestamp(event.createdAt),
  ],
});

const readHanded = rowReader({ id: Column.int, webhookId: Column.int, eventId: Column.text });
const readWritten = rowReader({
  id: Column.nullable(Column.int),
  webhookId: Column.nullable(Column.int),
  claimToken: Column.nullable(Column.text),
});
const readKeyed = rowReader({ id: Column.text, requestHash: Column.text, deliveryCount: Column.int, createdAt: Column.moment });

interface Ingested {
  readonly event: NewEvent;
  readonly fanOut: FanOut;
}

@Injectable()
export class EventsRepository {
  private readonly ingest: GroupCommit<Ingested, InsertedEvent>;

  constructor(
    private readonly db: Database,
    private readonly ingestDb: IngestDatabase,
  ) {
    this.ingest = new GroupCommit((group) => this.writeGroup(group), {
      maxItems: GROUP_MAX_EVENTS,
      maxBytes: GROUP_MAX_BYTES,
      bytesOf: ({ event }) => event.payload.ciphertext.length,
    });
  }

  /**
   * The event and its deliveries, committed together with the other events accepted at the same
   * moment (GroupCommit). 'duplicate' when the idempotency key is taken; 'unknown organization'
   * when there is no such organization (its foreign key says so). A group whose script committed
   * though its answer was lost (the connection cut after COMMIT) is written again event by event,
   * and each then finds its own id taken: that event is written, its deliveries read back. An
   * event written alone whose answer was lost is looked for the same way (through the pool, not
   * ingest's connection): found, it is written; else the database's error stands.
   */
  async insert(event: NewEvent, fanOut: FanOut = {}): Promise<InsertedEvent | 'duplicate' | 'unknown organization'> {
    try {
      return await this.ingest.submit({ event, fanOut });
    } catch (error) {
      if (isUniqueViolation(error)) return (await this.written(event, fanOut)) ?? 'duplicate';
      if (isForeignKeyViolation(error)) return 'unknown organization';
      if (!isDatabaseUnavailable(error)) throw error;
      const written = await this.written(event, fanOut).catch(() => undefined);
      if (written === undefined) throw error;
      return written;
    }
  }

  /** The same, inside the caller's transaction: an event written with the change that causes it (docs/api.md 10.12, the Outbox). */
  async insertIn(tx: Transaction, event: NewEvent, fanOut: FanOut = {}): Promise<{ deliveries: number }> {
    const { sql, params } = insertEvent(event);
    await tx.execute(sql, params);
    return { deliveries: await tx.execute(varying(fanOutSql(fanOut)), fanOutParams(event, fanOut)) };
  }

  /**
   * A group of events in one transaction (ingest's connection is at READ COMMITTED: the
   * fan-out's SELECT reads without locks, so it takes no gap lock that would hold off the
   * dispatcher): the organizations' source rows locked in share mode first, in id order, so
   * that a webhook write (which locks it exclusively) is wholly before or after the group and
   * no delivery is inserted for a webhook a concurrent delete is removing; the events in one
   * INSERT; a fan-out per event; the deliveries handed over, read in one SELECT. A statement or
   * two per event, sent in one round trip.
   */
  private async writeGroup(group: readonly Ingested[]): Promise<InsertedEvent[]> {
    const organizations = [...new Set(group.map(({ event }) => event.organizationId))].sort((a, b) => a - b);
    const events = group.map(({ event }) => insertEvent(event));
    const handedOver = group.filter(({ fanOut }) => fanOut.handoff !== undefined);
    const statements: ScriptStatement[] = [
      {
        sql: WebhookSql.sourcesInShareMode(organizations.length, this.ingestDb.dialect.forShare),
        params: organizations,
        rows: true,
      },
      { sql: `${INSERT_EVENTS} ${events.map(() => EVENT_VALUES).join(', ')}`, params: events.flatMap(({ params }) => params) },
      ...group.map(({ event, fanOut }) => ({ sql: fanOutSql(fanOut), params: fanOutParams(event, fanOut) })),
    ];
    if (handedOver.length > 0) {
      // One instance's handoffs share its token: the deliveries handed over of the whole group in one read.
      statements.push({
        sql: `SELECT id, webhook_id AS webhookId, event_id AS eventId FROM deliveries
               WHERE claim_token = ? AND event_id IN (${placeholders(handedOver.length)})`,
        params: [handedOver[0].fanOut.handoff!.token, ...handedOver.map(({ event }) => event.id)],
        rows: true,
      });
    }
    const results = await this.ingestDb.atomically(statements);
    const handed = (results.length > 2 + group.length ? (results.at(-1) as Row[]) : []).map(readHanded);
    return group.map(({ event, fanOut }, i) => ({
      deliveries: results[2 + i] as number,
      handed: fanOut.handoff
        ? handed.filter((delivery) => delivery.eventId === event.id).map(({ id, webhookId }) => ({ id, webhookId }))
        : [],
    }));
  }

  /**
   * A `webhook.test` event and its one delivery, to that webhook only (docs/api.md 10.7), in the
   * caller's transaction (which holds the webhook's row in share mode first: WebhookTestService);
   * the delivery's id.
   */
  async insertForWebhook(tx: Transaction, event: NewEvent, webhookId: number): Promise<number> {
    const at = sqlTimestamp(event.createdAt);
    const { sql, params } = insertEvent(event);
    await tx.execute(sql, params);
    return tx.insert(
      `INSERT INTO deliveries (event_id, organization_id, event_type, webhook_id, state, attempts, next_attempt_at, created_at)
       VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`,
      [event.id, event.organizationId, event.type, webhookId, at, at],
    );
  }

  /**
   * The event of this id as its group wrote it, undefined when there is none (the unique key
   * taken is then the idempotency key's: an id is never reused): its deliveries, and those still
   * claimed with the handoff's token.
   */
  private async written(event: NewEvent, { handoff }: FanOut): Promise<InsertedEvent | undefined> {
    const rows = (
      await this.db.select(
        `SELECT d.id AS id, d.webhook_id AS webhookId, d.claim_token AS claimToken
           FROM events e LEFT JOIN deliveries d ON d.event_id = e.id WHERE e.id = ?`,
        [event.id],
      )
    ).map(readWritten);
    if (rows.length === 0) return undefined;
    const deliveries = rows.filter((row) => row.id !== null);
    return {
      deliveries: deliveries.length,
      handed: deliveries
        .filter(({ claimToken }) => handoff !== undefined && claimToken === handoff.token)
        .map(({ id, webhookId }) => ({ id: id!, webhookId: webhookId! })),
    };
  }

  async findByIdempotencyKey(organizationId: number, key: string): Promise<KeyedEvent | undefined> {
    const [row] = await this.db.select(
      `SELECT e.id AS id, e.request_hash AS requestHash, e.created_at AS createdAt,
              (SELECT COUNT(*) FROM deliveries d WHERE d.event_id = e.id) AS deliveryCount
         FROM events e WHERE e.organization_id = ? AND e.idempotency_key = ?`,
      [organizationId, key],
    );
    return row && readKeyed(row);
  }

  /** Frees an expired idempotency key (older than its window) for a new event. */
  async forgetIdempotencyKey(eventId: string): Promise<void> {
    await this.db.execute('UPDATE events SET idempotency_key = NULL WHERE id = ?', [eventId]);
  }

  /**
   * The organization's pending deliveries (docs/api.md 10.10's backpressure): one range of
   * ix_deliveries_webhook_lane_due per webhook; in the caller's transaction when given one.
   */
  async countPending(organizationId: number, tx?: Transaction): Promise<number> {
    const [row] = await (tx ?? this.db).select(
      `SELECT COUNT(*) AS pending FROM ${WebhookSql.withSource} JOIN deliveries d ON d.webhook_id = ${WebhookSql.id} AND d.state = 'pending'
        WHERE ${WebhookSql.organization} = ?`,
      [organizationId],
    );
    return row === undefined ? 0 : Column.int(row.pending);
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
