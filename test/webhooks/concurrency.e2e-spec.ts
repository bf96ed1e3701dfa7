import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box';
import { createTestDatabase, DatabaseKind, describeEachDatabase, describeOnMariadb } from '../support/databases';
import { TestApp } from '../support/test-app';
import { migrationNames } from '../support/migrations';

/*
 * No write is lost and the source-row invariant (docs/api.md 5) holds under concurrent requests.
 * On MariaDB the requests are spread over three instances of the service on one database, so
 * only row locks and unique keys can make them correct; on SQLite one instance serves them
 * all (its writes are serialized in-process). Every check is on answers and rows, never on
 * timing: each test accepts every outcome a correct service may produce and nothing else.
 */

const ZONE = { 'hooks.example.com': { A: ['93.184.215.14'] } };
const MAX = 5;
const ENV = { WEBHOOKS_PER_ORG_MAX: String(MAX) };
const hook = (path: string): string => `https://hooks.example.com/${path}`;
/** A URL with a public IP literal: no DNS work, so the write starts as soon as the request arrives. */
const direct = (path: string): string => `https://93.184.215.14/${path}`;

type OpKind = 'create' | 'delete' | 'legacy create' | 'legacy delete';
interface Op {
  readonly kind: OpKind;
  readonly name: string;
  /** The URL a creating operation sends. */
  readonly url: string;
}
interface Answered extends Op {
  readonly status: number;
}

/** A stored webhook's URL, or null when the name does not exist. */
type NameState = string | null;

/** What one operation answers, and leaves, when it runs alone on `state` (docs/api.md 5.3). */
function applyAlone(op: Op, state: NameState): { status: number; state: NameState } {
  switch (op.kind) {
    case 'create':
      return state === null ? { status: 201, state: op.url } : { status: 409, state };
    case 'delete':
      return state === null ? { status: 404, state } : { status: 200, state: null };
    case 'legacy create':
      return { status: 200, state: op.url };
    case 'legacy delete':
      return { status: 200, state: null };
  }
}

/**
 * Every final state of one name that some serial order of `ops` (all in flight together)
 * produces while giving exactly the answers the service gave. Empty when no order explains
 * the answers.
 */
function explainedFinalStates(start: NameState, ops: readonly Answered[]): Set<NameState> {
  const finals = new Set<NameState>();
  const visit = (state: NameState, remaining: readonly Answered[]): void => {
    if (remaining.length === 0) {
      finals.add(state);
      return;
    }
    remaining.forEach((op, i) => {
      const alone = applyAlone(op, state);
      if (alone.status === op.status) visit(alone.state, [...remaining.slice(0, i), ...remaining.slice(i + 1)]);
    });
  };
  visit(start, ops);
  return finals;
}

/** A small seeded PRNG (mulberry32): the interleaving test sends the same requests every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Sends two requests at once, in the given order or the other (the answers keep the given order). */
async function together<T>(first: () => PromiseLike<T>, second: () => PromiseLike<T>, swap: boolean): Promise<[T, T]> {
  if (!swap) return Promise.all([first(), second()]);
  const [b, a] = await Promise.all([second(), first()]);
  return [a, b];
}

const ALLOWED_STATUSES: Record<OpKind, number[]> = {
  create: [201, 409],
  delete: [200, 404],
  'legacy create': [200],
  'legacy delete': [200],
};

describeEachDatabase('concurrent webhook writes', (kind: DatabaseKind) => {
  const apps: TestApp[] = [];
  /** Request number i goes to instance i modulo the number of instances. */
  const on = (i: number): TestApp => apps[i % apps.length];

  beforeAll(async () => {
    apps.push(await TestApp.start(kind, { zone: ZONE, env: ENV }));
    if (kind === 'mariadb') {
      apps.push(await apps[0].another({ zone: ZONE, env: ENV }));
      apps.push(await apps[0].another({ zone: ZONE, env: ENV }));
    }
  });
  afterAll(async () => {
    // The first instance drops the database, so it closes last.
    for (const app of [...apps].reverse()) await app.close();
  });

  const create = (app: TestApp, cookie: string, name: string, url: string) =>
    app.http().post(`/api/webhook/${name}`).set('Cookie', cookie).send({ url });
  const remove = (app: TestApp, cookie: string, name: string) => app.http().delete(`/api/webhook/${name}`).set('Cookie', cookie);
  const legacyCreate = (app: TestApp, cookie: string, name: string, url: string) =>
    app.http().post('/api/webhook').set('Cookie', cookie).send({ name, url });
  const legacyDelete = (app: TestApp, cookie: string, name: string) =>
    app.http().delete('/api/webhook').set('Cookie', cookie).send({ name });

  const send = (app: TestApp, cookie: string, op: Op): Promise<Response> => {
    switch (op.kind) {
      case 'create':
        return create(app, cookie, op.name, op.url);
      case 'delete':
        return remove(app, cookie, op.name);
      case 'legacy create':
        return legacyCreate(app, cookie, op.name, op.url);
      case 'legacy delete':
        return legacyDelete(app, cookie, op.name);
    }
  };

  /**
   * Asserts the source-row invariant for the whole database (no source row without a webhook,
   * no webhook without a source row; nothing is in flight when this runs) and for
   * `organizationId` (one source row if it has a webhook, none otherwise), and returns that
   * organization's webhooks as name -> stored URL.
   */
  async function storedWebhooks(organizationId: number, when: string): Promise<Record<string, string>> {
    const db = apps[0].dataSource;
    const emptySources = await db.query(
      'SELECT ws.id FROM webhook_sources ws WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.source_id = ws.id)',
    );
    const orphans = await db.query(
      'SELECT w.id, w.name FROM webhooks w WHERE NOT EXISTS (SELECT 1 FROM webhook_sources ws WHERE ws.id = w.source_id)',
    );
    const sources: unknown[] = await db.query('SELECT id FROM webhook_sources WHERE organization_id = ?', [organizationId]);
    const rows: { name: string; url: string }[] = await db.query(
      `SELECT w.name, w.url FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id WHERE ws.organization_id = ?`,
      [organizationId],
    );
    expect(emptySources, `${when}: source rows without a webhook`).toEqual([]);
    expect(orphans, `${when}: webhooks without a source row`).toEqual([]);
    expect(sources.length, `${when}: source rows of the organization`).toBe(rows.length > 0 ? 1 : 0);
    return Object.fromEntries(rows.map((row) => [row.name, row.url]));
  }

  const unexpected = (responses: readonly Response[], allowed: readonly number[]) =>
    responses.filter((r) => !allowed.includes(r.status)).map((r) => ({ status: r.status, body: r.body as unknown }));

  it('lets exactly one of 12 parallel creates of one name win; the others answer 409 name conflict', async () => {
    const { organizationId, cookie } = await apps[0].member('owner');
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => create(on(i), cookie, 'same', hook(`same-${i}`))));

    expect(unexpected(responses, [201, 409])).toEqual([]);
    const winners = responses.flatMap((r, i) => (r.status === 201 ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const r of responses.filter((r) => r.status === 409)) expect(r.body).toEqual({ code: 'name conflict' });
    expect(await storedWebhooks(organizationId, 'after the race')).toEqual({ same: hook(`same-${winners[0]}`) });
  });

  it('stops 12 parallel creates of distinct names at WEBHOOKS_PER_ORG_MAX: 5 created, 7 limit reached', async () => {
    const { organizationId, cookie } = await apps[0].member('owner');
    const names = Array.from({ length: 12 }, (_, i) => `cap-${i}`);
    const responses = await Promise.all(names.map((name, i) => create(on(i), cookie, name, hook(name))));

    expect(unexpected(responses, [201, 400])).toEqual([]);
    const created = names.filter((_, i) => responses[i].status === 201);
    expect(created).toHaveLength(MAX);
    for (const r of responses.filter((r) => r.status === 400)) expect(r.body).toMatchObject({ code: 'limit reached' });
    expect(await storedWebhooks(organizationId, 'after the race')).toEqual(Object.fromEntries(created.map((name) => [name, hook(name)])));
  });

  it('keeps the source row exactly while webhooks exist when a create races the delete of the last webhook', async () => {
    const { organizationId, cookie } = await apps[0].member('owner');
    let last = 'race-0';
    expect((await create(on(0), cookie, last, direct(last))).status).toBe(201);

    for (let round = 1; round <= 30; round++) {
      const next = `race-${round}`;
      const [deleted, created] = await together(
        () => remove(on(round), cookie, last),
        () => create(on(round + 1), cookie, next, direct(next)),
        round % 2 === 0,
      );
      expect([deleted.status, created.status], `round ${round}: ${JSON.stringify([deleted.body, created.body])}`).toEqual([200, 201]);
      expect(await storedWebhooks(organizationId, `round ${round}`)).toEqual({ [next]: direct(next) });
      last = next;
    }
  });

  it('stores what the answers say when a create of a name races the delete of that same last webhook', async () => {
    const { organizationId, cookie } = await apps[0].member('owner');
    let exists = false;
    for (let round = 1; round <= 30; round++) {
      if (!exists) expect((await create(on(round + 2), cookie, 'again', direct(`again-${round}-first`))).status).toBe(201);
      const [deleted, created] = await together(
        () => remove(on(round), cookie, 'again'),
        () => create(on(round + 1), cookie, 'again', direct(`again-${round}`)),
        round % 2 === 0,
      );
      // The webhook existed when both started, so the delete finds one to delete; the create
      // wins only if it ran after the delete, and then its webhook is what remains.
      const when = `round ${round}: ${JSON.stringify([deleted.body, created.body])}`;
      expect(deleted.status, when).toBe(200);
      expect([201, 409], when).toContain(created.status);
      exists = created.status === 201;
      expect(await storedWebhooks(organizationId, when)).toEqual(exists ? { again: direct(`again-${round}`) } : {});
    }
  });

  it('ends every name in a state some order of the acknowledged operations explains, under interleaved create/delete/legacy writes', async () => {
    const { organizationId, cookie } = await apps[0].member('owner');
    const names = ['mix-a', 'mix-b', 'mix-c'];
    const kinds: OpKind[] = ['create', 'delete', 'legacy create', 'legacy delete'];
    const random = seeded(20_251_001);
    let state: Record<string, string> = {};

    for (let batch = 1; batch <= 10; batch++) {
      // Four operations per name (so at most 4! orders to explain), shuffled, all in flight at once.
      const ops: Op[] = names.flatMap((name) =>
        Array.from({ length: 4 }, (_, i) => ({
          kind: kinds[Math.floor(random() * kinds.length)],
          name,
          url: direct(`${name}-${batch}-${i}`),
        })),
      );
      const order = ops
        .map((op) => ({ op, key: random() }))
        .sort((a, b) => a.key - b.key)
        .map(({ op }) => op);
      const responses = await Promise.all(order.map((op, i) => send(on(i + batch), cookie, op)));

      const when = `batch ${batch}`;
      const answered: Answered[] = order.map((op, i) => ({ ...op, status: responses[i].status }));
      const refused = answered.flatMap((a, i) =>
        ALLOWED_STATUSES[a.kind].includes(a.status) ? [] : [{ ...a, body: responses[i].body as unknown }],
      );
      expect(refused, `${when}: answers no correct service gives`).toEqual([]);

      const stored = await storedWebhooks(organizationId, when);
      for (const name of names) {
        const explained = explainedFinalStates(
          state[name] ?? null,
          answered.filter((a) => a.name === name),
        );
        expect(
          explained.has(stored[name] ?? null),
          `${when}, ${name}: from ${state[name] ?? 'absent'}, answers ${JSON.stringify(answered.filter((a) => a.name === name))} ` +
            `explain ${JSON.stringify([...explained])}, stored ${stored[name] ?? 'absent'}`,
        ).toBe(true);
      }
      state = stored;
    }
  });

  it('lands every one of parallel patches of different members of one webhook', async () => {
    const { cookie } = await apps[0].member('owner');
    expect((await create(on(0), cookie, 'patched', hook('patched-0'))).status).toBe(201);

    for (let round = 1; round <= 3; round++) {
      const patches = [
        { url: hook(`url-${round}`) },
        { transaction: { created: hook(`tc-${round}`) } },
        { transaction: { updated: hook(`tu-${round}`) } },
        { card: { updated: hook(`cu-${round}`) } },
        { user: { updated: hook(`uu-${round}`) } },
      ];
      const responses = await Promise.all(
        patches.map((body, i) =>
          on(i + round)
            .http()
            .patch('/api/webhook/patched')
            .set('Cookie', cookie)
            .send(body),
        ),
      );
      expect(unexpected(responses, [200]), `round ${round}`).toEqual([]);

      const read = await on(round).http().get('/api/webhook/patched').set('Cookie', cookie);
      expect(read.body, `round ${round}`).toEqual({
        url: hook(`url-${round}`),
        transaction: { created: hook(`tc-${round}`), updated: hook(`tu-${round}`) },
        card: { updated: hook(`cu-${round}`) },
        user: { updated: hook(`uu-${round}`) },
      });
    }
  });

  it('answers 12 concurrent legacy creates of one new name all 200 with the same, stored secret', async () => {
    const { organizationId, cookie } = await apps[0].member('owner');
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => legacyCreate(on(i), cookie, 'legacy', hook(`legacy-${i}`))));

    expect(unexpected(responses, [200])).toEqual([]);
    const secrets = new Set(responses.map((r) => (r.body as { secret?: unknown }).secret));
    expect(secrets.size).toBe(1);
    const [secret] = secrets;
    expect(secret).toMatch(/^whsec_/);

    const stored = await storedWebhooks(organizationId, 'after the race');
    expect(Object.keys(stored)).toEqual(['legacy']);
    expect(Array.from({ length: 12 }, (_, i) => hook(`legacy-${i}`))).toContain(stored.legacy);
    const [row]: { secret: string; keyId: string }[] = await apps[0].dataSource.query(
      `SELECT w.secret, w.secret_key_id AS keyId FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ? AND w.name = ?`,
      [organizationId, 'legacy'],
    );
    expect(
      apps[0].app.get(SecretBox).open({ ciphertext: row.secret, keyId: row.keyId }, { table: 'webhooks', organizationId, row: 'legacy' }),
    ).toBe(secret);
  });
});

describeOnMariadb('migrations at start', () => {
  it('brings up three instances started at once on an empty database and applies each migration exactly once', async () => {
    const database = await createTestDatabase('mariadb');
    const secretKey = randomBytes(32).toString('base64');
    const starts = await Promise.allSettled([1, 2, 3].map(() => TestApp.start('mariadb', { database, secretKey })));
    const started = starts.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    try {
      expect(starts.flatMap((s) => (s.status === 'rejected' ? [String(s.reason)] : []))).toEqual([]);
      const applied: { name: string }[] = await started[0].dataSource.query('SELECT name FROM migrations ORDER BY id');
      expect(applied.map((row) => row.name)).toEqual(migrationNames('mariadb'));
      for (const app of started) expect((await app.http().get('/health')).status).toBe(200);
    } finally {
      for (const app of started) await app.close();
      await database.drop();
    }
  });
});
