import { describe, expect, it } from 'vitest';
import type { Database } from '../../database/database';
import { MYSQL_DIALECT } from '../../database/sql-dialect';
import type { Row, ScriptStatement, SqlValue } from '../../database/sql-executor';
import { EventsRepository, type NewEvent } from './events.repository';
import type { IngestDatabase } from './ingest-database';

const HANDOFF = { token: 'mine', leaseUntil: new Date(), exclude: [] };

const eventOf = (id: string, idempotencyKey?: string): NewEvent => ({
  id,
  organizationId: 3,
  type: 'card.updated',
  idempotencyKey,
  requestHash: 'hash',
  payload: { ciphertext: 'sealed', keyId: 'k1' },
  bodyBytes: 10,
  createdAt: new Date(),
  trace: { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' },
});

/** An event's one delivery, claimed with the handoff's token, as the read-back finds it. */
const deliveryOf = (eventId: string): Row => ({ eventId, id: 1, webhookId: 7, claimToken: HANDOFF.token });

const duplicate = () => Object.assign(new Error('Duplicate entry'), { code: 'ER_DUP_ENTRY' });

/**
 * Ingest's connection and the pool, over events committed in memory: a script's events (the ids
 * and idempotency keys of its INSERT) are refused when one is taken, else committed, each with
 * one delivery claimed with the handoff's token. `lostAnswers` scripts of more than one event, and
 * `lostAlone` of one, commit and then fail as a connection cut after COMMIT does; `cutAlone`
 * scripts of one fail before they commit.
 */
function databases({ lostAnswers = 0, lostAlone = 0, cutAlone = 0, keysTaken = [] as string[] } = {}) {
  const committed = new Map<string, string | null>();
  const connectionLost = () => Object.assign(new Error('Connection lost'), { code: 'PROTOCOL_CONNECTION_LOST', fatal: true });
  let lost = lostAnswers;
  let lostSingle = lostAlone;
  let cutSingle = cutAlone;
  const ingestDb = {
    dialect: MYSQL_DIALECT,
    async atomically(statements: readonly ScriptStatement[]) {
      await new Promise((resolve) => setImmediate(resolve)); // the round trip: the next group gathers meanwhile
      const values = statements[1].params as SqlValue[];
      const events = Array.from({ length: values.length / 8 }, (_, i) => ({
        id: String(values[i * 8]),
        key: values[i * 8 + 3] as string | null,
      }));
      const taken = (key: string | null) => key !== null && (keysTaken.includes(key) || [...committed.values()].includes(key));
      if (events.some(({ id, key }) => committed.has(id) || taken(key))) throw duplicate();
      if (events.length === 1 && cutSingle-- > 0) throw connectionLost();
      for (const { id, key } of events) committed.set(id, key);
      if (events.length > 1 ? lost-- > 0 : lostSingle-- > 0) throw connectionLost();
      return statements.map((statement, i) => (i === 0 ? [] : statement.rows ? events.map(({ id }) => deliveryOf(id)) : 1));
    },
  };
  const db = {
    async select(_sql: string, ids: SqlValue[]): Promise<Row[]> {
      return ids.filter((id) => committed.has(String(id))).map((id) => deliveryOf(String(id)));
    },
  };
  return new EventsRepository(db as unknown as Database, ingestDb as unknown as IngestDatabase);
}

describe('EventsRepository.insert', () => {
  it('answers the events of a group that committed though its answer was lost as written, their handed deliveries read back', async () => {
    const events = databases({ lostAnswers: 1 });
    const outcomes = await Promise.all(['evt_1', 'evt_2', 'evt_3'].map((id) => events.insert([eventOf(id)], HANDOFF)));
    const written = [{ deliveries: 1, handed: [{ id: 1, webhookId: 7 }] }];
    expect(outcomes).toEqual([written, written, written]);
  });

  it('answers an event written alone whose answer was lost as written, its handed delivery read back', async () => {
    const events = databases({ lostAlone: 1 });
    expect(await events.insert([eventOf('evt_1')], HANDOFF)).toEqual([{ deliveries: 1, handed: [{ id: 1, webhookId: 7 }] }]);
  });

  it("leaves the database's error standing for an event written alone whose script was cut before COMMIT", async () => {
    const events = databases({ cutAlone: 1 });
    await expect(events.insert([eventOf('evt_1')])).rejects.toMatchObject({ code: 'PROTOCOL_CONNECTION_LOST' });
  });

  it('answers duplicate when another event holds the idempotency key', async () => {
    const events = databases({ keysTaken: ['key-1'] });
    expect(await events.insert([eventOf('evt_1', 'key-1')])).toBe('duplicate');
  });
});
