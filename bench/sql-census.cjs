// Preloaded into a server by bench/phases.mjs (`node --require bench/sql-census.cjs`): counts the
// commands the process sends to MariaDB and the statements in them, by the phase of an event's
// path each belongs to (ingest, claim, attempt, record; BENCH_SQL_CENSUS_PORT, 3306 by default),
// read from the wire: every write of a MySQL packet to that port (net.Socket's write, which mysql2
// uses) is one command; a COM_QUERY's text, a COM_STMT_PREPARE's text and the statement a
// COM_STMT_EXECUTE names (its id, read from the answer to the prepare) say which phase. A
// transaction's own START TRANSACTION and COMMIT sent alone count in the phase of the statements
// between them. On SIGUSR2 (and at exit) it writes the counts so far to BENCH_SQL_CENSUS_FILE as
// JSON: {phase: {commands, statements, sent, received}} (bytes: the commands, and the answers that
// followed them) and the texts it could not place (their start, counted).
'use strict';
const net = require('node:net');
const { writeFileSync } = require('node:fs');

const PORT = Number(process.env.BENCH_SQL_CENSUS_PORT || 3306);
const FILE = process.env.BENCH_SQL_CENSUS_FILE;
const COM_QUERY = 0x03;
const COM_STMT_PREPARE = 0x16;
const COM_STMT_EXECUTE = 0x17;

/** First match wins; checked against a statement's text. */
const PHASES = [
  ['session', /^\s*(SET|SELECT @@|SHOW)\b/i],
  // ingest: the key, the organizations, the idempotency keys, the pending count, the group commit
  [
    'ingest',
    /platform_keys|FROM organizations|idempotency_key|INSERT INTO events|AS organizationId, COUNT|SUM\(b\.n\)|LOCK IN SHARE MODE|claimToken\s+FROM events/i,
  ],
  // record: the held claims, the attempt's record, the endpoints' health
  ['record', /AND d\.state = 'pending' AND d\.id IN|SET state = CASE id|INTO delivery_attempts|failing_since|FROM delivery_attempts/i],
  // claim: the scan, the health rows a claim locks, the due deliveries, the claim's write, the bodies, a release
  [
    'claim',
    /freshDueAt|INTO webhook_health|rate_next_at|SKIP LOCKED|claim_token = '[^']*' WHERE id IN|FROM events WHERE id IN|claim_token = NULL\s+WHERE claim_token =|ORDER BY d\.created_at, d\.id/i,
  ],
  // attempt: the webhooks as stored when attempts start
  ['attempt', /AS w_name/i],
];
const counts = {};
const unplaced = new Map();
const phaseOf = (text) => {
  const sql = text.slice(0, 4000);
  const found = PHASES.find(([, pattern]) => pattern.test(sql));
  if (found) return found[0];
  const key = sql.slice(0, 120);
  if (unplaced.has(key) || unplaced.size < 50) unplaced.set(key, (unplaced.get(key) ?? 0) + 1);
  return 'other';
};
const BEGIN = /^\s*(START TRANSACTION|BEGIN)\b/i;
const END = /^\s*(COMMIT|ROLLBACK)\b/i;

/** Per socket: prepared statements by id, a prepare waiting for its id, the START TRANSACTIONs waiting for their phase. */
const sockets = new WeakMap();
function stateOf(socket) {
  let state = sockets.get(socket);
  if (state === undefined) {
    state = { statements: new Map(), preparing: undefined, begins: 0, lastPhase: 'other' };
    sockets.set(socket, state);
    // Ahead of mysql2's own listener: a PREPARE it writes while reading an answer is answered in a later chunk.
    socket.prependListener('data', (chunk) => {
      // Answers come in the order of the commands: this one is the last command's.
      const c = counts[state.lastPhase];
      if (c !== undefined) c.received += chunk.length;
      // The answer to a prepare is its first packet: 0x00, then the statement's id.
      if (state.preparing === undefined || chunk.length < 9) return;
      if (chunk[4] === 0x00) state.statements.set(chunk.readUInt32LE(5), state.preparing);
      state.preparing = undefined;
    });
  }
  return state;
}

/** A command of `phase` carrying `statements` (a PREPARE none), with the START TRANSACTIONs sent alone before it. */
function place(state, phase, statements, bytes) {
  const c = (counts[phase] ??= { commands: 0, statements: 0, sent: 0, received: 0 });
  c.sent += bytes;
  c.commands += 1 + state.begins;
  c.statements += statements + state.begins;
  state.begins = 0;
  state.lastPhase = phase;
}

function census(socket, chunk) {
  const state = stateOf(socket);
  const command = chunk[4];
  if (command === COM_QUERY) {
    const sql = chunk.toString('utf8', 5);
    const parts = sql.split(/;\n/).filter((part) => part.trim() !== '');
    if (parts.length === 1 && BEGIN.test(sql)) state.begins++;
    else if (parts.length === 1 && END.test(sql)) place(state, state.lastPhase, 1, chunk.length);
    // A script (ingest's group commit) is placed by its first statement after START TRANSACTION.
    else place(state, phaseOf(parts.find((part) => !BEGIN.test(part) && !END.test(part)) ?? sql), parts.length, chunk.length);
  } else if (command === COM_STMT_PREPARE) {
    const sql = chunk.toString('utf8', 5);
    state.preparing = sql;
    place(state, phaseOf(sql), 0, chunk.length);
  } else if (command === COM_STMT_EXECUTE) {
    const id = chunk.readUInt32LE(5);
    const sql = state.statements.get(id);
    place(
      state,
      sql === undefined
        ? phaseOf(`(execute of statement ${id}, prepared before: ${[...state.statements.keys()].join(',')})`)
        : phaseOf(sql),
      1,
      chunk.length,
    );
  }
}

const write = net.Socket.prototype.write;
net.Socket.prototype.write = function censusWrite(chunk, ...rest) {
  if (this.remotePort === PORT && Buffer.isBuffer(chunk) && chunk.length > 4) {
    try {
      census(this, chunk);
    } catch {
      // counting must never break the server
    }
  }
  return write.call(this, chunk, ...rest);
};

function save() {
  try {
    if (FILE) writeFileSync(FILE, JSON.stringify({ counts, unplaced: [...unplaced] }));
  } catch {
    // the bench reads nothing, and says so
  }
}
process.on('SIGUSR2', save);
process.on('exit', save);
