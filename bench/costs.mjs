// What a run costs, read from the outside (issue 32; used by delivery.mjs's W6/W6b/W7/W7b lines
// and bench/phases.mjs): MariaDB's own counters (statements by kind,
// bytes written), the round trips of given processes to it (their TCP segments), and the CPU of
// every process that takes part, from /proc.
//
// Statements: MariaDB counts every statement it executes for a client in `Questions`, each one of
// a multi-statement script included (ingest's group commit is one round trip of six), a prepared
// statement's execution once, its PREPARE not at all. The `Com_*` counters split it by kind, but a
// prepared execution counts in both `Com_stmt_execute` and its kind's `Com_select`/`Com_insert`/…,
// so summing `Com_select + … + Com_stmt_execute` counts every prepared statement twice. So:
// statements = Δ`Questions` (less this module's own reading), split into reads (`Com_select`),
// writes (`Com_insert` + `Com_insert_select` + `Com_update` + `Com_delete`), transaction control
// (`Com_begin` + `Com_commit` + `Com_rollback`) and the rest (session `SET`s and the like);
// `Com_stmt_execute` says how many of them went as prepared statements.
//
// Round trips: the data segments the client's sockets to MariaDB sent (`ss`'s `data_segs_out`):
// one per command on the wire (a query, a script, a prepare, an execution), as long as a command
// fits in one segment (64 KiB on loopback). Measured on the processes named (the servers), so
// the bench's own reading is not in it.
//
// The counters are the whole MariaDB server's: a reading says when other clients were connected
// (any connection to another database than the run's), and the figures then include their work.
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import { sleep } from './delivery-harness.mjs';
import { cpuTicks, machineTicks, TICKS_PER_SECOND } from './harness.mjs';

const COUNTERS = [
  'Questions',
  'Com_select',
  'Com_insert',
  'Com_insert_select',
  'Com_update',
  'Com_delete',
  'Com_begin',
  'Com_commit',
  'Com_rollback',
  'Com_stmt_execute',
  'Com_stmt_prepare',
  'Innodb_os_log_written',
  'Innodb_data_written',
  'Innodb_data_fsyncs',
  'Bytes_received',
];
/** What one reading adds to the counters it reads: its processlist SELECT, then its SHOW (counted once in a delta). */
const OWN = { Questions: 2, Com_select: 1 };

/**
 * The MariaDB server's counters now, and how many other clients were connected: `ours` names the
 * run's databases (a list), whose connections are the run's own.
 */
export async function dbCounters(server, ours = []) {
  const connection = await mysql.createConnection({ uri: server.href });
  try {
    const [[{ others }]] = await connection.query(
      `SELECT COUNT(*) AS others FROM information_schema.PROCESSLIST
        WHERE ID <> CONNECTION_ID() AND USER <> 'system user' AND (DB IS NULL OR DB NOT IN (?))`,
      [ours.length > 0 ? ours : ['']],
    );
    const [rows] = await connection.query(`SHOW GLOBAL STATUS WHERE Variable_name IN (?)`, [COUNTERS]);
    const values = Object.fromEntries(rows.map((row) => [row.Variable_name, Number(row.Value)]));
    return { values, others: Number(others) };
  } finally {
    await connection.end();
  }
}

/** From one reading to a later one: the counters' growth, less the readings' own statements. */
export function dbDelta(before, after) {
  const d = Object.fromEntries(
    COUNTERS.map((name) => [name, (after.values[name] ?? NaN) - (before.values[name] ?? NaN) - (OWN[name] ?? 0)]),
  );
  const reads = d.Com_select;
  const writes = d.Com_insert + d.Com_insert_select + d.Com_update + d.Com_delete;
  const transactions = d.Com_begin + d.Com_commit + d.Com_rollback;
  return {
    statements: d.Questions,
    reads,
    writes,
    transactions,
    other: d.Questions - reads - writes - transactions,
    prepared: d.Com_stmt_execute,
    prepares: d.Com_stmt_prepare,
    redoBytes: d.Innodb_os_log_written,
    dataBytes: d.Innodb_data_written,
    fsyncs: d.Innodb_data_fsyncs,
    bytesReceived: d.Bytes_received,
    others: Math.max(before.others, after.others),
  };
}

/** The delta per unit (per event): every figure divided, `others` kept. */
export function perUnit(delta, units) {
  return Object.fromEntries(Object.entries(delta).map(([key, value]) => [key, key === 'others' ? value : value / units]));
}

/** "3.41 (reads 1.20, writes 1.10, tx 0.90, other 0.21; 0.30 prepared)": statements per unit, for a table cell or a line. */
export function statementsText(per, digits = 2) {
  const f = (value) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
  return `${f(per.statements)} (reads ${f(per.reads)}, writes ${f(per.writes)}, tx ${f(per.transactions)}, other ${f(per.other)}; ${f(per.prepared)} prepared)`;
}

/**
 * Data segments sent to MariaDB's port by each socket of these processes (`ss -tinp`): a map of
 * socket (local address) to segments. Round trips over a window: roundTrips(before, after).
 */
export function dbSegments(pids, port = 3306) {
  let text;
  try {
    text = execFileSync('ss', ['-tinpH', 'state', 'established', `( dport = :${port} )`], { encoding: 'utf8' });
  } catch {
    return undefined; // no ss: round trips are not measured
  }
  const wanted = new Set(pids.map(String));
  const segments = new Map();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const pid = /pid=(\d+),/.exec(lines[i])?.[1];
    if (pid === undefined || !wanted.has(pid)) continue;
    const local = lines[i].trim().split(/\s+/)[2];
    const info = `${lines[i]} ${lines[i + 1] ?? ''}`;
    segments.set(`${pid} ${local}`, Number(/data_segs_out:(\d+)/.exec(info)?.[1] ?? 0));
  }
  return segments;
}

/** Segments sent between two readings (a socket opened meanwhile counts whole; one closed meanwhile is lost). */
export function roundTrips(before, after) {
  if (before === undefined || after === undefined) return NaN;
  let sum = 0;
  for (const [socket, segments] of after) sum += segments - (before.get(socket) ?? 0);
  return sum;
}

function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** mariadbd's (or mysqld's) pids when the server runs on this machine. */
export function mariadbPids(server) {
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(server.hostname)) return [];
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && ['mariadbd', 'mysqld'].includes(comm(entry)))
    .map(Number);
}

/**
 * The CPU of named processes and of the whole machine over a window: `start()` then `stop()`
 * gives, per name, % of one core and CPU ms; `machine` the whole machine's busy % of one core
 * (100 × cores when every core was busy), `other` what none of the named processes used
 * (loopback's kernel work, someone else's load), `steal` the hypervisor's.
 */
export function cpuWindow(named) {
  const pids = () => Object.entries(named).map(([name, list]) => [name, [list].flat().filter((pid) => pid !== undefined)]);
  const ticksOf = () => Object.fromEntries(pids().map(([name, list]) => [name, list.reduce((sum, pid) => sum + cpuTicks(pid), 0)]));
  const stealTicks = () => {
    try {
      return Number(readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/)[8]);
    } catch {
      return NaN;
    }
  };
  const from = { ticks: ticksOf(), machine: machineTicks(), steal: stealTicks(), at: performance.now() };
  return () => {
    const ticks = ticksOf();
    const machine = machineTicks();
    const elapsedTicks = machine.total - from.machine.total; // every core's ticks
    const cores = cpus().length;
    const pct = (t) => (100 * cores * t) / elapsedTicks;
    const processes = Object.fromEntries(
      Object.keys(ticks).map((name) => [
        name,
        { percent: pct(ticks[name] - from.ticks[name]), ms: ((ticks[name] - from.ticks[name]) * 1000) / TICKS_PER_SECOND },
      ]),
    );
    const busy = machine.busy - from.machine.busy;
    const namedTicks = Object.keys(ticks).reduce((sum, name) => sum + ticks[name] - from.ticks[name], 0);
    return {
      processes,
      machine: pct(busy),
      other: pct(busy - namedTicks),
      steal: pct(stealTicks() - from.steal),
      seconds: (performance.now() - from.at) / 1000,
    };
  };
}

/** "server 98 %, mariadbd 61 %, … ; machine 190 % of 200 (other 12, steal 0)". */
export function cpuText(cpu) {
  const f = (value) => (Number.isFinite(value) ? value.toFixed(0) : '-');
  return `${Object.entries(cpu.processes)
    .map(([name, { percent }]) => `${name} ${f(percent)} %`)
    .join(', ')}; machine ${f(cpu.machine)} % of ${100 * cpus().length} (other ${f(cpu.other)}, steal ${f(cpu.steal)})`;
}

/** The 1-, 5- and 15-minute load averages, as `uptime` prints them. */
export function loadAverage() {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return '-';
  }
}

/**
 * Starts measuring what a window costs: MariaDB's counters (above), the round trips of the
 * service's servers to it, and the CPU of every process taking part. `offered()` stops the
 * CPU window (while the load runs: what saturates; `end` stops it if it still runs);
 * `end(units)` reads the rest (after the work has drained), with the servers' CPU over the whole window, each per unit (event). Before the
 * window, a second of MariaDB's statements while the service idles (`background`).
 */
export async function startCosts(config, service, receiver, { background = true } = {}) {
  const serverPids = service.servers.map((server) => server.child.pid);
  const port = Number(config.mariadb.port || 3306);
  const named = Object.fromEntries(serverPids.map((pid, i) => [serverPids.length === 1 ? 'server' : `server ${i + 1}`, pid]));
  Object.assign(named, { mariadbd: mariadbPids(config.mariadb) }, receiver ? { 'receiver+proxy': receiver.pid } : {}, {
    'load (bench)': process.pid,
  });
  const loadBefore = loadAverage();
  // The statements made meanwhile by the idle service (its scan) and by anyone else: MariaDB's
  // counters are the whole server's, so a busy background makes the window's figures upper bounds.
  // (`background: false` when the service is at work already.)
  const idle = background ? await dbCounters(config.mariadb, [service.database.name]) : undefined;
  if (background) await sleep(1000);
  const db = await dbCounters(config.mariadb, [service.database.name]);
  const statementsBefore = background ? dbDelta(idle, db).statements : undefined;
  const segments = dbSegments(serverPids, port);
  const window = cpuWindow(named);
  let used;
  /** The CPU window's figures, stopped at the first call. */
  const offered = () => (used ??= window());
  const whole = cpuWindow(Object.fromEntries(serverPids.map((pid, i) => [`server ${i + 1}`, pid])));
  return {
    offered,
    end: async (units) => {
      const servers = whole();
      const after = dbSegments(serverPids, port);
      const delta = dbDelta(db, await dbCounters(config.mariadb, [service.database.name]));
      const serverMs = Object.values(servers.processes).reduce((sum, { ms }) => sum + ms, 0);
      return {
        units,
        cpu: offered(),
        delta,
        perEvent: perUnit(delta, units),
        roundTripsPerEvent: roundTrips(segments, after) / units,
        serverUsPerEvent: (1000 * serverMs) / units,
        background: statementsBefore,
        loadBefore,
        loadAfter: loadAverage(),
      };
    },
  };
}
