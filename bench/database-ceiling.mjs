// The rate at which one MariaDB primary becomes the limit (issue 32, docs/operations.md's sizing):
// the database driven with the service's own hot statements, taken from src/delivery/__sql__/*.sql
// (the snapshots delivery-sql.spec.ts keeps of what delivery sends), from several client
// processes, without HTTP and without our server: the figure is the database's, not ours.
//
// Each client process loops over W7's path of one group of events (the hand-off path, docs/
// architecture.md "The path of an event"):
//   1. the platform key's lookup, once per request (per event for single events, once for a
//      batch: src/identity/platform-keys.repository.ts findLive, prepared);
//   2. ingest's group commit of G events as one multi-statement round trip (events.repository.sql
//      "insert: ingest's group commit …": START TRANSACTION, the organizations' source rows in
//      share mode, the events in one INSERT, their deliveries in one INSERT … SELECT inserted
//      claimed with the client's token, the read-back, COMMIT);
//   3. the webhooks as stored when the attempts start (DeliveryQueue.targets, from build/: the
//      one hot statement the snapshots do not hold);
//   4. the record of the G attempts in one transaction (delivery-queue.sql "record: …": the held
//      claims locked, the deliveries' new state, the attempts' rows), each a round trip.
// G (BENCH_CEILING_GROUPS) is the events a group commit carries: 1 (single events, no grouping),
// 10 (single events grouped under load), 100 (a batch). For each G, 1, 2, 4, … clients
// (BENCH_CEILING_CLIENTS) for BENCH_CEILING_SECONDS each: events carried through per second,
// MariaDB's statements, commits, fsyncs and redo bytes per event, and the CPU of mariadbd and of
// the clients (they share the cores: on this 2-core machine the clients' own CPU is the bound
// for small G; mariadbd's µs per event say what one database core carries).
//
// Environment: BENCH_DATABASE_URL, BENCH_PORT [3000] (the server that makes the schema and the
// webhooks, stopped before the load), BENCH_CEILING_CLIENTS [1,2,4,8], BENCH_CEILING_GROUPS
// [1,10,100], BENCH_CEILING_SECONDS [10], BENCH_W7_WEBHOOKS [8] (organizations, one webhook each).
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mysql from 'mysql2/promise';
import { cpuText, cpuWindow, dbCounters, dbDelta, loadAverage, mariadbPids } from './costs.mjs';
import { prepareBench, RECEIVER_HOST, sleep, startService } from './delivery-harness.mjs';
import { BenchError, fixed, intFromEnv, log, out, parseServerUrl, ROOT, runBench, stop } from './harness.mjs';

const SQL_DIR = join(ROOT, 'src', 'delivery', '__sql__');

// ---- the statements, from the snapshots ---------------------------------------------------

/** A snapshot file's sections: header (the text after `-- `) → its statements. */
function sections(file) {
  const text = readFileSync(join(SQL_DIR, file), 'utf8');
  const result = new Map();
  for (const part of text.split(/^-- /m).slice(1)) {
    const [header, ...body] = part.split('\n');
    const statements = body
      .join('\n')
      .split(/;\n/)
      .map((statement) => statement.trim().replace(/;$/, ''))
      .filter((statement) => statement !== '');
    result.set(header.trim(), statements);
  }
  return result;
}

function section(file, header) {
  const found = sections(file).get(header);
  if (found === undefined)
    throw new BenchError(`src/delivery/__sql__/${file}: no section "${header}" (the snapshot changed: update bench/database-ceiling.mjs)`);
  return found;
}

const count = (sql) => (sql.match(/\?/g) ?? []).length;
const repeat = (text, n, separator = ', ') => Array.from({ length: n }, () => text).join(separator);

/** Replaces `from` (which must occur exactly once) by `to`. */
function once(sql, from, to) {
  const at = sql.indexOf(from);
  if (at < 0 || sql.indexOf(from, at + 1) >= 0) throw new BenchError(`database-ceiling: "${from}" not found once in the snapshot's SQL`);
  return sql.slice(0, at) + to + sql.slice(at + from.length);
}

/** Ingest's group commit script for `events` events of `orgs` organizations, from the one-event shape. */
function ingestScript(events, orgs) {
  const [sources, insertEvents, fanOut, written] = section(
    'events.repository.sql',
    "insert: ingest's group commit of one event handed over, as one script: mysql",
  );
  const tuple = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
  const derived =
    '(SELECT ? AS n, ? AS id, ? AS org, ? AS type, ? AS quoted_type, ? AS quoted_wildcard, ? AS at, ? AS lease_until, ? AS token)';
  return [
    once(sources, 'IN (?)', `IN (${repeat('?', orgs)})`),
    once(insertEvents, tuple, repeat(tuple, events)),
    once(fanOut, derived, `${derived.slice(0, -1)}${repeat(' UNION ALL SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?', events - 1, '')})`),
    once(written, 'IN (?)', `IN (${repeat('?', events)})`),
  ];
}

/** The record of `n` attempts (held claims, new states, attempt rows), from the two-attempt shape. */
function recordStatements(n) {
  const [held, update, attempts] = section('delivery-queue.sql', 'record: a batch of two attempts, one succeeded, one to retry: mysql');
  const cases = repeat('WHEN ? THEN ?', n, ' ');
  return [
    once(held, 'd.id IN (?, ?)', `d.id IN (${repeat('?', n)})`),
    once(update.replaceAll('WHEN ? THEN ? WHEN ? THEN ?', cases), 'WHERE id IN (?, ?)', `WHERE id IN (${repeat('?', n)})`),
    once(attempts, '(?, ?, ?, ?, ?), (?, ?, ?, ?, ?)', repeat('(?, ?, ?, ?, ?)', n)),
  ];
}

/** DeliveryQueue.targets for `n` webhooks, from the compiled WebhookSql (build/). */
function targetsSql(n) {
  const { WebhookSql } = createRequire(import.meta.url)(join(ROOT, 'build', 'webhooks', 'webhook-sql.js'));
  return `SELECT ${WebhookSql.id} AS webhookId, ${WebhookSql.targetColumns} FROM ${WebhookSql.withSource}
          WHERE ${WebhookSql.id} IN (${repeat('?', n)})`;
}

/** src/identity/platform-keys.repository.ts findLive, as the server prepares it on MariaDB. */
const KEY_LOOKUP = `SELECT k.id AS id, k.scoped AS scoped, k.last_used_at AS lastUsedAt, o.organization_id AS organizationId
         FROM platform_keys k
         LEFT JOIN platform_key_organizations o ON o.platform_key_id = k.id
        WHERE k.token_hash = ? AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > UTC_TIMESTAMP(3))`;

// ---- a client process ---------------------------------------------------------------------

const stamp = (ms) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

async function client({ url, group, orgs, requestsPerGroup, tokenHash }) {
  const session = [
    "SET SESSION sql_mode = 'STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION'",
    'SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED',
  ];
  const ingest = await mysql.createConnection({ uri: url, multipleStatements: true });
  const dispatch = await mysql.createConnection({ uri: url });
  const requests = await mysql.createConnection({ uri: url });
  for (const connection of [ingest, dispatch, requests]) for (const sql of session) await connection.query(sql);
  const token = randomBytes(12).toString('base64url');
  const groupOrgs = [...new Set(Array.from({ length: group }, (_, i) => orgs[i % orgs.length]))].sort((a, b) => a - b);
  const [sources, insertEvents, fanOut, written] = ingestScript(group, groupOrgs.length);
  const script = ['START TRANSACTION', sources, insertEvents, fanOut, written, 'COMMIT'].join(';\n');
  const [held, update, attempts] = recordStatements(group);
  const targetsBySize = new Map();
  const targets = (n) => targetsBySize.get(n) ?? targetsBySize.set(n, targetsSql(n)).get(n);
  const payload = JSON.stringify({ k: 'k1', c: randomBytes(160).toString('base64') });
  let events = 0;
  let running = true;
  let n = 0;
  const one = async () => {
    const now = Date.now();
    const ids = Array.from({ length: group }, () => `evt_${randomBytes(12).toString('hex')}`);
    const orgOf = (i) => orgs[(n + i) % orgs.length];
    for (let r = 0; r < requestsPerGroup; r++) await requests.execute(KEY_LOOKUP, [tokenHash]);
    const params = [
      ...groupOrgs,
      ...ids.flatMap((id, i) => [
        id,
        orgOf(i),
        'transaction.created',
        null,
        randomBytes(32).toString('hex'),
        payload,
        120,
        stamp(now),
        null,
        null,
        null,
      ]),
      ...ids.flatMap((id, i) => [
        i,
        id,
        orgOf(i),
        'transaction.created',
        '"transaction.created"',
        '"transaction.*"',
        stamp(now),
        stamp(now + 45_000),
        token,
      ]),
      ...ids,
    ];
    if (count(script) !== params.length) throw new Error(`ingest: ${count(script)} placeholders, ${params.length} values`);
    const results = await ingest.query({ sql: script, values: params });
    const deliveries = results[0][4].filter((row) => row.id !== null && row.claimToken === token);
    if (deliveries.length !== group) throw new Error(`ingest handed over ${deliveries.length} of ${group} deliveries`);
    const hooks = [...new Set(deliveries.map((row) => row.webhookId))];
    await dispatch.query(targets(hooks.length), hooks);
    const did = deliveries.map((row) => row.id);
    const at = stamp(Date.now());
    await dispatch.query('START TRANSACTION');
    await dispatch.query(held, [token, ...did]);
    const column = (value) => did.flatMap((id) => [id, value]);
    await dispatch.query(update, [
      ...column('succeeded'),
      ...column(null),
      ...column(at),
      ...column(3),
      ...column(204),
      ...column(null),
      ...did,
    ]);
    await dispatch.query(
      attempts,
      did.flatMap((id) => [id, at, 3, 204, null]),
    );
    await dispatch.query('COMMIT');
    events += group;
    n += group;
  };
  process.on('message', async (message) => {
    if (message.cmd === 'go') {
      events = 0;
      const until = Date.now() + message.ms;
      while (running && Date.now() < until) await one();
      process.send({ events });
    }
    if (message.cmd === 'warm') {
      const until = Date.now() + message.ms;
      while (Date.now() < until) await one();
      process.send({ warm: true });
    }
    if (message.cmd === 'end') {
      running = false;
      await Promise.all([ingest.end(), dispatch.end(), requests.end()]);
      process.exit(0);
    }
  });
  process.send({ ready: true });
}

// ---- the run ------------------------------------------------------------------------------

function loadConfig() {
  const list = (name, fallback) => (process.env[name] || fallback).split(',').map((item) => intFromEnv(name, 0, 1, item.trim()));
  return {
    mariadb: parseServerUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306'),
    port: intFromEnv('BENCH_PORT', 3000, 1),
    clients: list('BENCH_CEILING_CLIENTS', '1,2,4,8'),
    groups: list('BENCH_CEILING_GROUPS', '1,10,100'),
    seconds: intFromEnv('BENCH_CEILING_SECONDS', 10, 1),
    webhooks: intFromEnv('BENCH_W7_WEBHOOKS', 8, 1),
  };
}

/** N client processes, warmed up, then measured together for `seconds`. */
async function measure(config, service, group, clients, tokenHash) {
  const setup = {
    url: service.database.url,
    group,
    orgs: service.orgs.map(({ id }) => id),
    // Single events pay the key's lookup per event; a batch once.
    requestsPerGroup: group === 100 ? 1 : group,
    tokenHash,
  };
  const children = Array.from({ length: clients }, () =>
    fork(fileURLToPath(import.meta.url), ['client'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  );
  const next = (child) =>
    new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new BenchError(`a client exited (${code})`)));
    });
  try {
    await Promise.all(children.map((child) => (child.send({ cmd: 'setup', setup }), next(child))));
    await Promise.all(children.map((child) => (child.send({ cmd: 'warm', ms: 1000 }), next(child))));
    const before = await dbCounters(config.mariadb, [service.database.name]);
    const load = loadAverage();
    const cpu = cpuWindow({ mariadbd: mariadbPids(config.mariadb), clients: children.map((child) => child.pid) });
    const started = Date.now();
    const done = await Promise.all(children.map((child) => (child.send({ cmd: 'go', ms: config.seconds * 1000 }), next(child))));
    const seconds = (Date.now() - started) / 1000;
    const used = cpu();
    const delta = dbDelta(before, await dbCounters(config.mariadb, [service.database.name]));
    const events = done.reduce((sum, { events }) => sum + events, 0);
    const mariadbMs = used.processes.mariadbd.ms;
    return {
      group,
      clients,
      eventsPerSecond: events / seconds,
      statementsPerEvent: delta.statements / events,
      commitsPerSecond: delta.transactions / 2 / seconds,
      fsyncsPerSecond: delta.fsyncs / seconds,
      redoPerEvent: delta.redoBytes / events,
      dataPerEvent: delta.dataBytes / events,
      mariadbUsPerEvent: (1000 * mariadbMs) / events,
      cpu: used,
      others: delta.others,
      load: `${load} → ${loadAverage()}`,
    };
  } finally {
    for (const child of children) child.send({ cmd: 'end' });
    await sleep(300);
    for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  }
}

async function main() {
  const config = loadConfig();
  const { secretKey, dns, receiver } = await prepareBench(config);
  // The schema and W7's organizations and webhooks, made by the service itself; then the server goes.
  const organizations = Array.from({ length: config.webhooks }, (_, i) => ({ [`c-${i}`]: `https://${RECEIVER_HOST}/c-${i}` }));
  const service = await startService(config, secretKey, dns, receiver, { organizations, env: { DELIVERY_CONCURRENCY: '0' } });
  const rows = [];
  try {
    await stop(service.servers[0].child);
    // The bench's platform key: the lookup finds a row, as a request's does.
    const connection = await mysql.createConnection({ uri: service.database.url });
    const [[{ tokenHash }]] = await connection.query('SELECT token_hash AS tokenHash FROM platform_keys LIMIT 1');
    await connection.end();
    for (const group of config.groups) {
      for (const clients of config.clients) {
        log(`database ceiling: groups of ${group} event(s), ${clients} client process(es), ${config.seconds} s; load ${loadAverage()}`);
        const row = await measure(config, service, group, clients, tokenHash);
        log(`  ${fixed(row.eventsPerSecond, 0)} events/s, ${fixed(row.statementsPerEvent, 2)} statements per event; ${cpuText(row.cpu)}`);
        rows.push(row);
      }
    }
    rows.stored = await storedBytes(service.database);
  } finally {
    await service.stop();
  }
  report(config, rows);
}

/** What the events carried through take in the tables (InnoDB's data and index sizes after ANALYZE): bytes per event. */
async function storedBytes(database) {
  const connection = await mysql.createConnection({ uri: database.url });
  try {
    const tables = ['events', 'deliveries', 'delivery_attempts'];
    await connection.query(`ANALYZE TABLE ${tables.join(', ')}`);
    const [rows] = await connection.query(
      `SELECT TABLE_NAME AS name, DATA_LENGTH + INDEX_LENGTH AS bytes FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?)`,
      [database.name, tables],
    );
    const [[{ events }]] = await connection.query('SELECT COUNT(*) AS events FROM events');
    return { events: Number(events), perEvent: Object.fromEntries(rows.map(({ name, bytes }) => [name, Number(bytes) / Number(events)])) };
  } finally {
    await connection.end();
  }
}

function report(config, rows) {
  const f = fixed;
  out(`## The database's ceiling: the service's hot statements from client processes, no HTTP (${config.seconds} s each)`);
  out();
  out(
    '| events per group commit | client processes | events/s carried through | statements per event | commits/s | fsyncs/s | redo / data bytes per event | mariadbd CPU µs per event | events/s per mariadbd core | CPU % of one core | load before → after |',
  );
  out('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|');
  for (const r of rows) {
    out(
      `| ${r.group} | ${r.clients} | ${f(r.eventsPerSecond, 0)} | ${f(r.statementsPerEvent, 2)} | ${f(r.commitsPerSecond, 0)} | ${f(r.fsyncsPerSecond, 0)} | ${f(r.redoPerEvent, 0)} / ${f(r.dataPerEvent, 0)} | ${f(r.mariadbUsPerEvent, 0)} | ${f(1e6 / r.mariadbUsPerEvent, 0)} | ${cpuText(r.cpu)} | ${r.load} |`,
    );
  }
  const others = Math.max(...rows.map((r) => r.others));
  out();
  if (rows.stored) {
    const stored = Object.entries(rows.stored.perEvent);
    out(
      `Stored per event (one delivery, one attempt), over the ${rows.stored.events} events of the run: ${stored.map(([table, bytes]) => `${table} ${f(bytes, 0)} B`).join(', ')}; ${f(
        stored.reduce((sum, [, bytes]) => sum + bytes, 0),
        0,
      )} B in all (data and indexes, InnoDB's page-level estimate).`,
    );
    out();
  }
  if (others > 0) out(`Other clients were connected to the MariaDB server (up to ${others}): its statements and CPU include their work.`);
}

if (process.argv[2] === 'client') {
  process.once('message', (message) => {
    if (message.cmd === 'setup') {
      client(message.setup).catch((error) => {
        process.stderr.write(`database-ceiling client: ${error.stack ?? error}\n`);
        process.exit(1);
      });
    }
  });
} else {
  await runBench(main);
}
