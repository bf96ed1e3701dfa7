import { describe, expect, it } from 'vitest';
import type { Database } from '../database/database';
import { MYSQL_DIALECT, sqlTimestamp, SQLITE_DIALECT, type SqlDialect } from '../database/sql-dialect';
import { type Row, type ScriptStatement, type Sql, textOf } from '../database/sql-executor';
import type { Transaction } from '../database/unit-of-work';
import { DeliveryQueue, SCAN, STATS } from './dispatch/delivery-queue';
import { type Completion, DeliveryTransitions } from './dispatch/delivery-transitions';
import { EndpointHealthRepository } from './dispatch/endpoint-health.repository';
import { EventsRepository, fanOutSql, type NewEvent } from './events/events.repository';
import { pageSql, type PageShape } from './log/delivery-log.repository';

/*
 * The composed SQL of delivery's hot paths as files a reviewer can diff (immich's @GenerateSql):
 * src/delivery/__sql__/, one file per repository. A builder is rendered for each shape it takes;
 * a transaction is recorded as its repository method sends it, statement by statement, against a
 * database that answers with fixed rows. Each is rendered for both dialects, and written once
 * when they agree. A change to a statement fails here until the files are written again with
 * `npm run test:unit -- -u` (Vitest's file snapshots); the diff is then the change to review.
 */

const DIALECTS = [MYSQL_DIALECT, SQLITE_DIALECT] as const;
const NOW = Date.UTC(2026, 0, 1);
const HEADER = '-- Written by src/delivery/delivery-sql.spec.ts (`npm run test:unit -- -u`): what delivery sends the database.\n';

/** A statement as the file shows it: its text as sent, without trailing spaces, ended by a semicolon. */
const statement = (sql: string): string => `${sql.replace(/[ \t]+$/gm, '')};`;

/** One section: the statements of `render` for each dialect, under one heading when both send the same. */
async function section(title: string, render: (dialect: SqlDialect) => string[] | Promise<string[]>): Promise<string> {
  const [mysql, sqlite] = await Promise.all(DIALECTS.map(async (dialect) => (await render(dialect)).map(statement).join('\n\n')));
  return mysql === sqlite ? `-- ${title}: mysql, sqlite\n${mysql}\n` : `-- ${title}: mysql\n${mysql}\n\n-- ${title}: sqlite\n${sqlite}\n`;
}

async function matchFile(file: string, sections: Promise<string>[]): Promise<void> {
  await expect(`${HEADER}\n${(await Promise.all(sections)).join('\n')}`).toMatchFileSnapshot(`./__sql__/${file}`);
}

/** A database of `dialect` that records what it is sent, in order; each SELECT is answered with the next of `answers`. */
function recording(dialect: SqlDialect, answers: Row[][] = []) {
  const sent: string[] = [];
  /** Records a statement; what it gives back: the next answer for a SELECT, one row touched otherwise. */
  const send = (sql: Sql, rows: boolean): Row[] | number => {
    sent.push(textOf(sql));
    return rows ? (answers.shift() ?? []) : 1;
  };
  const tx: Transaction = {
    dialect,
    afterCommit: () => undefined,
    select: async <T extends Row>(sql: Sql) => send(sql, true) as T[],
    execute: async (sql) => send(sql, false) as number,
    insert: async (sql) => send(sql, false) as number,
  };
  const db = {
    ...tx,
    dialect,
    atomically: async (statements: readonly ScriptStatement[]) => statements.map(({ sql, rows }) => send(sql, rows === true)),
  };
  return { db: db as unknown as Database, tx, sent };
}

/** A due delivery as the claim's lane SELECT answers it. */
const dueRow = (id: number, webhookId: number, lane: number): Row => ({
  id,
  webhookId,
  lane,
  dueAt: sqlTimestamp(new Date(NOW)),
  attempts: lane,
  retryFrom: 0,
  organizationId: 3,
  eventId: `evt_${id}`,
  eventType: 'card.updated',
  bodyBytes: 100,
});

const event: NewEvent = {
  id: 'evt_1',
  organizationId: 3,
  type: 'card.updated',
  idempotencyKey: 'tx-1',
  requestHash: 'hash',
  payload: { ciphertext: 'sealed', keyId: 'k1' },
  bodyBytes: 100,
  createdAt: new Date(NOW),
  trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceState: 'congo=1' },
};
const handoff = { token: 'token', leaseUntil: new Date(NOW + 45_000), exclude: [] };

describe('the SQL of delivery, as committed in src/delivery/__sql__/', () => {
  /** The queue and its transitions on one recording database, as DispatchModule wires them. */
  const queueOn = (db: Database) => {
    const transitions = new DeliveryTransitions(db);
    return { queue: new DeliveryQueue(db, new EndpointHealthRepository(), transitions), transitions };
  };

  it('DeliveryQueue and DeliveryTransitions: the scan, a claim over lanes, a completion, the queue stats', async () => {
    await matchFile('delivery-queue.sql', [
      section('scan (SCAN): every enabled webhook with a due delivery, each lane one index seek', () => [SCAN]),
      section('claim: webhook 7 in both lanes; webhook 9 rate limited, its first attempts, its breaker probed', async (dialect) => {
        const { db, tx, sent } = recording(dialect, [
          [{ rateNextAt: null, breakerOpenUntil: sqlTimestamp(new Date(NOW - 1)) }],
          [dueRow(11, 7, 0), dueRow(12, 7, 1), dueRow(13, 9, 0)],
        ]);
        const { queue } = queueOn(db);
        const asks = [
          { webhookId: 7, fresh: 2, retries: 1 },
          { webhookId: 9, fresh: 1, retries: 0, rateLimit: 10, probe: true },
        ];
        await queue.claim(tx, asks, NOW, 45_000, 'token', (candidates) => candidates);
        return sent;
      }),
      section('claim: webhook 4 ordered, its head and its test pings', async (dialect) => {
        const { db, tx, sent } = recording(dialect, [[{ rateNextAt: null, breakerOpenUntil: null }], [], [{ id: 14 }], [dueRow(14, 4, 0)]]);
        await queueOn(db).queue.claim(tx, [{ webhookId: 4, fresh: 1, retries: 0, ordered: true }], NOW, 45_000, 'token', (c) => c);
        return sent;
      }),
      section('record: a batch of two attempts, one succeeded, one to retry', async (dialect) => {
        const at = new Date(NOW);
        const completions: Completion[] = [
          { id: 11, webhookId: 7, record: { state: 'succeeded', nextAttemptAt: null, at, durationMs: 120, status: 200, error: null } },
          {
            id: 13,
            webhookId: 9,
            record: { state: 'pending', nextAttemptAt: new Date(NOW + 5000), at, durationMs: 15_000, status: null, error: 'timeout' },
          },
        ];
        const held = completions.map(({ id, webhookId }) => ({ id, webhookId, attempts: 1, disabled: 0, unhealthy: 0 }));
        const { db, tx, sent } = recording(dialect, [held]);
        await queueOn(db).transitions.record(tx, completions, 'token');
        return sent;
      }),
      section('release: three claims given back (those of a webhook disabled meanwhile failed)', async (dialect) => {
        const { db, sent } = recording(dialect);
        await queueOn(db).transitions.release([11, 12, 13], 'token', NOW);
        return sent;
      }),
      section('fail left pending: what the scan found left by dead claimers on two disabled webhooks', async (dialect) => {
        const { db, sent } = recording(dialect);
        await queueOn(db).transitions.failLeftPending([7, 9], NOW);
        return sent;
      }),
      section('stats (STATS): the depth, the oldest due delivery, the open breakers', () => [STATS]),
    ]);
  });

  it("EventsRepository: the fan-out of each shape, and ingest's group commit", async () => {
    await matchFile('events.repository.sql', [
      section('fan-out: every webhook that takes the type (an event written with a change)', () => [fanOutSql({})]),
      section('fan-out: the enabled webhooks but one (webhook.disabled)', () => [fanOutSql({ onlyEnabledExcept: 5 })]),
      section("insert: ingest's group commit of one event handed over, as one script", async (dialect) => {
        const { db, sent } = recording(dialect, [[{ id: 1 }], [{ eventId: event.id, id: 21, webhookId: 7, claimToken: handoff.token }]]);
        await new EventsRepository(db, db).insert([event], handoff);
        return sent;
      }),
      section('insert: a batch of two events handed over, two webhooks left out, as one script', async (dialect) => {
        const { db, sent } = recording(dialect, [[{ id: 1 }], []]);
        await new EventsRepository(db, db).insert([event, { ...event, id: 'evt_2', idempotencyKey: undefined }], {
          ...handoff,
          exclude: [4, 5],
        });
        return sent;
      }),
    ]);
  });

  it('DeliveryLogRepository: a page of the log for every shape of its filters', async () => {
    const parts = ['state', 'type', 'since', 'until', 'after'] as const;
    const shapes = Array.from({ length: 2 ** parts.length }, (_, bits) =>
      Object.fromEntries(parts.map((part, i) => [part, (bits & (1 << i)) !== 0])),
    ) as PageShape[];
    await matchFile(
      'delivery-log.repository.sql',
      shapes.map((shape) => {
        const given = parts.filter((part) => shape[part]);
        return section(`page: ${given.length === 0 ? 'no filter' : given.join(', ')}`, (dialect) => [pageSql(shape, dialect)]);
      }),
    );
  });
});
