import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import mysql from 'mysql2/promise';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AppConfig } from '../../src/config/app-config';
import { SecretBox } from '../../src/crypto/secret-box';
import { createTestDatabase, describeOnMariadb, TestDatabase } from '../support/databases';
import { startDnsServer, TestDnsServer } from '../support/dns-server';
import { runCli, startServer, waitForHealthy } from '../support/processes';
import { freePort } from '../support/ports';
import {
  Answer,
  checkSamples,
  checkSoak,
  DatabaseSnapshot,
  EVENT_FIELDS,
  JsonObject,
  Listing,
  OperationKind,
  Request,
  SourceSample,
  statusCounts,
  Urls,
} from '../support/soak-model';

/*
 * Many instances, one database. Three server processes (the built dist/main.js) serve one
 * fresh MariaDB database; many concurrent clients drive them with a seeded random mix of
 * every webhook operation over a few names in a few organizations, and every answer is
 * recorded with the times it was sent and received. Then the model (support/soak-model.ts)
 * checks the answers, the rows and the final listings: no acknowledged write lost, no webhook
 * nobody asked for, the source-row invariant, one webhook per name, no status outside docs/api.md.
 * The source rows are also sampled during the load (the final rows alone would not show a
 * source row left behind and filled again later), and a final drain deletes every name at
 * once, after which no webhook and no source row may remain.
 *
 * On a violation the report names the operations involved, and every answer, the rows and
 * the samples are written to a JSON file in the temporary directory (its path is printed).
 *
 * SOAK_SECONDS sets the length of the load (default 10, short enough for `npm test`;
 * `npm run soak` runs 60), SOAK_SEED the requests (printed, so that a run can be repeated
 * as far as the interleaving allows), SOAK_CLIENTS the number of concurrent clients.
 */

function numberFrom(variable: string, fallback: number, { integer = false, min = 1 } = {}): number {
  const raw = process.env[variable];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${variable} must be ${integer ? 'an integer' : 'a number'} >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

const SECONDS = numberFrom('SOAK_SECONDS', 10);
const SEED = numberFrom('SOAK_SEED', 20_250_611, { integer: true, min: 0 });
const CLIENTS = numberFrom('SOAK_CLIENTS', 24, { integer: true });
const INSTANCES = 3;
const ORGANIZATIONS = 3;
/** Few names, so that operations on one name overlap often. */
const NAMES = ['alpha', 'beta', 'gamma', 'delta'];
/** Far beyond what the load reaches: the rate limiter must stay out of the way. */
const UNLIMITED = '100000000';
/** A client gives up on a request after this long; its operation then counts as "no answer". */
const CLIENT_TIMEOUT_MS = 60_000;

const SESSION_COOKIE = '__Secure-auth.session_token';
const ZONE = {
  'hooks.example.com': { A: ['93.184.215.14'] },
  'events.example.com': { AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:1c44'] },
};
/** Names resolved through the test DNS server, and a public IP literal that needs no lookup. */
const HOSTS = ['hooks.example.com', 'events.example.com', '93.184.215.14'];
const PATHS = ['in', 'events', 'v2/hooks?source=soak'];

/** Relative weights of the operations in the mix. */
const MIX: readonly (readonly [OperationKind, number])[] = [
  ['create', 18],
  ['legacy create', 12],
  ['patch', 22],
  ['delete', 10],
  ['legacy delete', 6],
  ['read', 16],
  ['list', 16],
];
const GROUPS = { transaction: ['created', 'updated', 'completed'], card: ['updated'], user: ['updated'] } as const;

/** A small seeded PRNG (mulberry32) with the few draws the driver needs. */
class Dice {
  private a: number;

  constructor(seed: number) {
    this.a = seed >>> 0;
  }

  float(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  chance(p: number): boolean {
    return this.float() < p;
  }

  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let roll = this.float() * items.reduce((sum, [, weight]) => sum + weight, 0);
    for (const [item, weight] of items) {
      roll -= weight;
      if (roll < 0) return item;
    }
    return items[items.length - 1][0];
  }
}

const randomUrl = (dice: Dice): string => `https://${dice.pick(HOSTS)}/${dice.pick(PATHS)}`;

/**
 * Event groups for a body. A create or legacy body only sets URLs; a patch body may also
 * clear a URL or a whole group with null. Empty groups ({}) come up too: they store nothing.
 */
function randomGroups(dice: Dice, patch: boolean): JsonObject {
  const body: JsonObject = {};
  for (const [group, members] of Object.entries(GROUPS)) {
    if (!dice.chance(0.4)) continue;
    if (patch && dice.chance(0.15)) {
      body[group] = null;
      continue;
    }
    const value: Record<string, string | null> = {};
    for (const member of members) {
      if (dice.chance(0.5)) value[member] = patch && dice.chance(0.3) ? null : randomUrl(dice);
    }
    body[group] = value;
  }
  return body;
}

function randomRequest(dice: Dice): Request {
  const kind = dice.weighted(MIX);
  const name = dice.pick(NAMES);
  switch (kind) {
    case 'create': {
      // Legacy clients may also send a (valid) name in the body; the path wins (docs/api.md 5.3).
      const bodyName = dice.chance(0.1) ? { name: dice.pick(NAMES) } : {};
      return { kind, name, body: { ...bodyName, url: randomUrl(dice), ...randomGroups(dice, false) } };
    }
    case 'legacy create':
      return { kind, name, body: { name, url: randomUrl(dice), ...randomGroups(dice, false) } };
    case 'patch':
      return { kind, name, body: { ...(dice.chance(0.4) ? { url: randomUrl(dice) } : {}), ...randomGroups(dice, true) } };
    case 'list':
      return { kind };
    default:
      return { kind, name };
  }
}

/** The HTTP form of a request (docs/api.md 5.3). */
function httpOf(request: Request, dice: Dice): { method: string; path: string; body?: JsonObject; contentType?: string } {
  switch (request.kind) {
    case 'create':
      return { method: 'POST', path: `/api/webhook/${request.name}`, body: request.body };
    case 'legacy create':
      return { method: 'POST', path: '/api/webhook', body: request.body };
    case 'patch':
      // docs/api.md 4: PATCH takes either media type.
      return {
        method: 'PATCH',
        path: `/api/webhook/${request.name}`,
        body: request.body,
        contentType: dice.pick(['application/json', 'application/merge-patch+json']),
      };
    case 'delete':
      return { method: 'DELETE', path: `/api/webhook/${request.name}` };
    case 'legacy delete':
      return { method: 'DELETE', path: '/api/webhook', body: { name: request.name } };
    case 'read':
      return { method: 'GET', path: `/api/webhook/${request.name}` };
    case 'list':
      return { method: 'GET', path: '/api/webhook' };
  }
}

const parseBody = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** Median and 99th percentile of the answer times, per operation. */
function latencies(answers: readonly Answer[]): Record<string, [number, number]> {
  const times = new Map<string, number[]>();
  for (const { request, sent, received } of answers) {
    if (!times.has(request.kind)) times.set(request.kind, []);
    times.get(request.kind)!.push(received - sent);
  }
  return Object.fromEntries(
    [...times].map(([kind, list]) => {
      list.sort((a, b) => a - b);
      const at = (q: number) => list[Math.min(list.length - 1, Math.floor(q * list.length))];
      return [kind, [at(0.5), at(0.99)]];
    }),
  );
}

const say = (line: string): void => void process.stdout.write(`soak: ${line}\n`);

describeOnMariadb('soak: many instances, one database', () => {
  let db: TestDatabase;
  let dns: TestDnsServer;
  let secretKey: Buffer;
  const servers: (ReturnType<typeof startServer> & { base: string })[] = [];
  /** Organization id and the session cookie of its owner. */
  const organizations: { id: number; cookie: string }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('mariadb');
    dns = await startDnsServer(ZONE);
    secretKey = randomBytes(32);
    const env = {
      DATABASE_URL: db.url,
      SECRET_KEY: secretKey.toString('base64'),
      DNS_SERVERS: dns.address,
      // The test DNS server shares its event loop with the clients: give it time to answer on
      // a busy machine, so that a slow answer is not taken for an outage (503).
      DNS_TIMEOUT_MS: '10000',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SESSION: UNLIMITED,
      RATE_LIMIT_PER_ORGANIZATION: UNLIMITED,
    };

    // All instances start at once on the empty database (they migrate it under a lock).
    for (let i = 0; i < INSTANCES; i++) {
      const port = await freePort();
      servers.push({ ...startServer({ ...env, HOST: '127.0.0.1', PORT: String(port) }), base: `http://127.0.0.1:${port}` });
    }
    await Promise.all(
      servers.map(async (server, i) => {
        try {
          await waitForHealthy(`${server.base}/health`, 90_000);
        } catch (error) {
          throw new Error(`instance ${i}: ${(error as Error).message}; output: ${server.output.join('')}`, { cause: error });
        }
      }),
    );

    // One owner, member of every organization, with one session per organization.
    const cli = async (...args: string[]): Promise<{ id: number; token: string }> => {
      const result = await runCli(args, env);
      if (result.code !== 0) throw new Error(`cli ${args.join(' ')}: ${result.stderr}`);
      return JSON.parse(result.stdout) as { id: number; token: string };
    };
    const [user, ...orgs] = await Promise.all([
      cli('user', 'create', '--email', 'soak-owner@example.test'),
      ...Array.from({ length: ORGANIZATIONS }, (_, i) => cli('org', 'create', '--name', `Soak ${i}`)),
    ]);
    await Promise.all(orgs.map((org) => cli('member', 'add', '--org', String(org.id), '--user', String(user.id), '--role', 'owner')));
    const sessions = await Promise.all(orgs.map((org) => cli('session', 'create', '--user', String(user.id), '--org', String(org.id))));
    orgs.forEach((org, i) => organizations.push({ id: org.id, cookie: `${SESSION_COOKIE}=${sessions[i].token}` }));
  }, 240_000);

  afterAll(async () => {
    await Promise.all(
      servers.map(({ child, exited }) => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        return exited;
      }),
    );
    await dns?.close();
    await db?.drop();
  }, 60_000);

  /** One request, with the times that bound its effect. */
  async function send(
    id: number,
    instance: number,
    organization: (typeof organizations)[number],
    request: Request,
    dice: Dice,
  ): Promise<Answer> {
    const { method, path, body, contentType } = httpOf(request, dice);
    const headers: Record<string, string> = { cookie: organization.cookie };
    if (body) headers['content-type'] = contentType ?? 'application/json';
    const sent = performance.now();
    try {
      const response = await fetch(`${servers[instance].base}${path}`, {
        method,
        headers,
        body: body && JSON.stringify(body),
        signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
      });
      const text = await response.text();
      return {
        id,
        organization: organization.id,
        instance,
        request,
        sent,
        received: performance.now(),
        status: response.status,
        body: parseBody(text),
      };
    } catch (error) {
      return { id, organization: organization.id, instance, request, sent, received: performance.now(), status: null, body: String(error) };
    }
  }

  /** The rows of the webhook tables, secrets decrypted (with the key the instances use). */
  async function snapshot(): Promise<DatabaseSnapshot> {
    const box = new SecretBox({ secretKeys: { current: secretKey, previous: [] } } as unknown as AppConfig);
    const columns: Record<(typeof EVENT_FIELDS)[number], string> = {
      'transaction.created': 'transaction_created_url',
      'transaction.updated': 'transaction_updated_url',
      'transaction.completed': 'transaction_completed_url',
      'card.updated': 'card_updated_url',
      'user.updated': 'user_updated_url',
    };
    const connection = await mysql.createConnection({ uri: db.url });
    try {
      const [sources] = await connection.query<mysql.RowDataPacket[]>('SELECT id, organization_id FROM webhook_sources');
      const [webhooks] = await connection.query<mysql.RowDataPacket[]>('SELECT * FROM webhooks');
      const organizationOfSource = new Map(sources.map((row) => [Number(row.id), Number(row.organization_id)]));
      return {
        sources: sources.map((row) => ({ id: Number(row.id), organizationId: Number(row.organization_id) })),
        webhooks: webhooks.map((row) => {
          const events: Partial<Record<(typeof EVENT_FIELDS)[number], string>> = {};
          for (const field of EVENT_FIELDS) if (row[columns[field]] !== null) events[field] = String(row[columns[field]]);
          const urls: Urls = { url: String(row.url), events };
          let secret: string;
          try {
            const binding = {
              table: 'webhooks',
              organizationId: organizationOfSource.get(Number(row.source_id)) ?? 0,
              row: String(row.name),
            } as const;
            secret = box.open({ ciphertext: String(row.secret), keyId: String(row.secret_key_id) }, binding);
          } catch (error) {
            secret = `(cannot decrypt: ${(error as Error).message})`;
          }
          return { id: Number(row.id), sourceId: Number(row.source_id), name: String(row.name), urls, secret };
        }),
      };
    } finally {
      await connection.end();
    }
  }

  /** GET /webhook of every organization from every instance. */
  async function listings(): Promise<Listing[]> {
    const all: Listing[] = [];
    for (const [instance, server] of servers.entries()) {
      for (const organization of organizations) {
        try {
          const response = await fetch(`${server.base}/api/webhook`, { headers: { cookie: organization.cookie } });
          all.push({ instance, organization: organization.id, status: response.status, text: await response.text() });
        } catch (error) {
          all.push({ instance, organization: organization.id, status: null, text: String(error) });
        }
      }
    }
    return all;
  }

  /**
   * Samples the source rows (with their number of webhooks) in one statement, so one
   * consistent snapshot, every ~100 ms until `done` says stop.
   */
  async function sampleSources(done: () => boolean): Promise<SourceSample[]> {
    const samples: SourceSample[] = [];
    const connection = await mysql.createConnection({ uri: db.url });
    try {
      while (!done()) {
        const at = performance.now();
        const [rows] = await connection.query<mysql.RowDataPacket[]>(
          `SELECT ws.id, ws.organization_id, COUNT(w.id) AS webhooks
             FROM webhook_sources ws LEFT JOIN webhooks w ON w.source_id = ws.id
            GROUP BY ws.id, ws.organization_id`,
        );
        samples.push({
          at,
          sources: rows.map((row) => ({ id: Number(row.id), organizationId: Number(row.organization_id), webhooks: Number(row.webhooks) })),
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await connection.end();
    }
    return samples;
  }

  it(
    `leaves the database and every instance consistent with every acknowledged answer (${SECONDS} s of load)`,
    async () => {
      say(
        `seed ${SEED} (SOAK_SEED), ${SECONDS} s (SOAK_SECONDS), ${CLIENTS} clients, ${INSTANCES} instances, ${ORGANIZATIONS} organizations x ${NAMES.length} names`,
      );
      const answers: Answer[] = [];
      let nextId = 0;

      // 1. The load: every client draws its requests from its own seeded stream, so a seed
      //    always sends the same requests (the interleaving is up to the machine).
      let loading = true;
      const sampling = sampleSources(() => !loading);
      const started = performance.now();
      const deadline = started + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: CLIENTS }, async (_, client) => {
          const dice = new Dice(Math.imul(SEED + 1, 0x9e3779b1) ^ Math.imul(client + 1, 0x85ebca6b));
          while (performance.now() < deadline) {
            const instance = dice.int(servers.length);
            const organization = dice.pick(organizations);
            answers.push(await send(nextId++, instance, organization, randomRequest(dice), dice));
          }
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      loading = false;
      const samples = await sampling;
      const loadCount = answers.length;

      // 2. Nothing is in flight now: the rows and the listings must be what the answers allow.
      const organizationIds = organizations.map((o) => o.id);
      const loaded = await snapshot();
      const violations = new Set([
        ...checkSoak({ organizations: organizationIds, names: NAMES, answers, database: loaded, listings: await listings() }),
        ...checkSamples(samples),
      ]);

      // 3. The drain: every name of every organization deleted at once, each by a delete and
      //    a legacy delete on two instances, so the last webhooks of each organization go
      //    concurrently. Then no webhook and no source row may remain (docs/api.md 5).
      const dice = new Dice(SEED);
      answers.push(
        ...(await Promise.all(
          organizations.flatMap((organization) =>
            NAMES.flatMap((name, i) => [
              send(nextId++, i % INSTANCES, organization, { kind: 'delete', name }, dice),
              send(nextId++, (i + 1) % INSTANCES, organization, { kind: 'legacy delete', name }, dice),
            ]),
          ),
        )),
      );
      const drained = await snapshot();
      for (const violation of checkSoak({
        organizations: organizationIds,
        names: NAMES,
        answers,
        database: drained,
        listings: await listings(),
      })) {
        violations.add(violation);
      }
      servers.forEach(({ child, output }, i) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          violations.add(`instance ${i} exited (${child.exitCode ?? child.signalCode}) during the run: ${output.join('').slice(-2000)}`);
        }
      });

      const load = answers.slice(0, loadCount);
      say(`${load.length} operations in ${elapsed.toFixed(1)} s: ${(load.length / elapsed).toFixed(0)} ops/s`);
      for (const [kind, counts] of Object.entries(statusCounts(load))) {
        say(
          `  ${kind.padEnd(14)} ${Object.entries(counts)
            .map(([status, n]) => `${status}: ${n}`)
            .join(', ')}`,
        );
      }
      for (const [kind, [p50, p99]] of Object.entries(latencies(load)))
        say(`  ${kind.padEnd(14)} latency p50 ${p50.toFixed(0)} ms, p99 ${p99.toFixed(0)} ms`);
      say(
        `after the load: ${loaded.webhooks.length} webhooks, ${loaded.sources.length} source rows; ${samples.length} samples of the source rows during it`,
      );
      say(
        `after the drain (${answers.length - loadCount} deletes): ${drained.webhooks.length} webhooks, ${drained.sources.length} source rows`,
      );
      say(`${violations.size} violation(s)`);
      for (const violation of violations) say(`VIOLATION ${violation}`);
      if (violations.size > 0) {
        const dump = join(tmpdir(), `soak-${SEED}-${Date.now()}.json`);
        writeFileSync(
          dump,
          JSON.stringify({ seed: SEED, organizations: organizationIds, names: NAMES, answers, loaded, drained, samples }),
        );
        say(`every answer, the rows and the samples: ${dump}`);
        servers.forEach(({ output }, i) => say(`instance ${i} output (tail): ${output.join('').slice(-3000)}`));
      }

      // Sanity of the run itself: the load reached both outcomes of the conditional
      // operations (so names did appear and disappear under the clients), otherwise the
      // checks above would have had little to judge.
      const counts = statusCounts(load);
      const outcomes = [
        'create 201',
        'create 409',
        'patch 200',
        'patch 404',
        'delete 200',
        'delete 404',
        'read 200',
        'read 404',
        'legacy create 200',
        'legacy delete 200',
        'list 200',
      ];
      expect(
        outcomes.filter((outcome) => {
          const [, kind, status] = /^(.*) (\d+)$/.exec(outcome)!;
          return !(counts[kind]?.[status] > 0);
        }),
        'outcomes the load never produced',
      ).toEqual([]);
      expect(samples.length, 'samples of the source rows during the load').toBeGreaterThan(0);
      expect([...violations].slice(0, 25), `${violations.size} violation(s), seed ${SEED}`).toEqual([]);
    },
    SECONDS * 1000 + 240_000,
  );
});
