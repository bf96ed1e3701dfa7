import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyIdOf, SecretBox } from '../../src/crypto/secret-box';
import { dataSourceOptions } from '../../src/database/data-source-options';
import { DatabaseKind, describeEachDatabase } from '../support/databases';
import { TestApp } from '../support/test-app';

/*
 * Secrets at rest (docs/api.md 3): signing secrets are stored only sealed by SecretBox, with the id
 * of their key beside them; session and wallet tokens only as hex SHA-256. And the schema the
 * migrations build is exactly the one the entities describe.
 */

const ZONE = { 'hooks.example.com': { A: ['93.184.215.14'] } };
const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

describeEachDatabase('secrets at rest', (kind: DatabaseKind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start(kind, { zone: ZONE });
  });
  afterAll(() => t?.close());

  /** Every cell of every table of the schema, as text. */
  async function everyStoredValue(): Promise<string[]> {
    const tables = t.dataSource.entityMetadatas.map((entity) => entity.tableName);
    expect(tables).toEqual(expect.arrayContaining(['webhooks', 'sessions', 'access_tokens']));
    const cells: string[] = [];
    for (const table of tables) {
      const rows: Record<string, unknown>[] = await t.dataSource.query(`SELECT * FROM ${table}`);
      for (const value of rows.flatMap((row) => Object.values(row))) {
        cells.push(Buffer.isBuffer(value) ? value.toString('hex') : value instanceof Date ? value.toISOString() : String(value));
      }
    }
    return cells;
  }

  /** The forms a secret or token could be written in: as given, its body, its bytes in hex. */
  const plainForms = (text: string, body: string, encoding: 'base64' | 'base64url'): string[] => [
    text,
    body,
    Buffer.from(body, encoding).toString('hex'),
  ];

  async function storedSecret(organizationId: number, name: string): Promise<{ secret: string; keyId: string }> {
    const rows: { secret: string; keyId: string }[] = await t.dataSource.query(
      `SELECT w.secret, w.secret_key_id AS keyId FROM webhook_sources ws JOIN webhooks w ON w.source_id = ws.id
        WHERE ws.organization_id = ? AND w.name = ?`,
      [organizationId, name],
    );
    expect(rows).toHaveLength(1);
    return rows[0];
  }

  it('never stores the signing secret a create returns in plain text', async () => {
    const { cookie } = await t.member('owner');
    const created = await t.http().post('/api/webhook/plain').set('Cookie', cookie).send({ url: 'https://hooks.example.com/plain' });
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const cells = await everyStoredValue();
    for (const form of plainForms(secret, secret.slice('whsec_'.length), 'base64')) {
      expect(
        cells.filter((cell) => cell.toLowerCase().includes(form.toLowerCase())),
        form,
      ).toEqual([]);
    }
  });

  it('stores the signing secret sealed with the current key, its key id beside it, opening to the returned secret', async () => {
    const { organizationId, cookie } = await t.member('owner');
    const created = await t.http().post('/api/webhook/sealed').set('Cookie', cookie).send({ url: 'https://hooks.example.com/sealed' });
    expect(created.status).toBe(201);

    const stored = await storedSecret(organizationId, 'sealed');
    expect(stored.secret).not.toContain(created.body.secret.slice('whsec_'.length));
    expect(stored.keyId).toBe(keyIdOf(t.config.secretKeys.current));
    expect(
      t.app.get(SecretBox).open({ ciphertext: stored.secret, keyId: stored.keyId }, { table: 'webhooks', organizationId, row: 'sealed' }),
    ).toBe(created.body.secret);
  });

  it('stores the signing secret of a legacy create sealed too, opening to the returned secret', async () => {
    const { organizationId, cookie } = await t.member('owner');
    const created = await t
      .http()
      .post('/api/webhook')
      .set('Cookie', cookie)
      .send({ name: 'legacy', url: 'https://hooks.example.com/legacy' });
    expect(created.status).toBe(200);
    const secret: string = created.body.secret;

    const stored = await storedSecret(organizationId, 'legacy');
    const cells = await everyStoredValue();
    for (const form of plainForms(secret, secret.slice('whsec_'.length), 'base64')) {
      expect(
        cells.filter((cell) => cell.toLowerCase().includes(form.toLowerCase())),
        form,
      ).toEqual([]);
    }
    expect(stored.keyId).toBe(keyIdOf(t.config.secretKeys.current));
    expect(
      t.app.get(SecretBox).open({ ciphertext: stored.secret, keyId: stored.keyId }, { table: 'webhooks', organizationId, row: 'legacy' }),
    ).toBe(secret);
  });

  it('never stores a custom header value in plain text (docs/api.md 10.15)', async () => {
    const { cookie } = await t.member('owner');
    const value = `receiver-key-${randomUUID()}`;
    const created = await t
      .http()
      .post('/api/webhook/headed')
      .set('Cookie', cookie)
      .send({ url: 'https://hooks.example.com/headed', headers: { 'X-Api-Key': value } });
    expect(created.status).toBe(201);
    const cells = await everyStoredValue();
    expect(
      cells.some((cell) => cell.includes('X-Api-Key')),
      'the name is stored as sent',
    ).toBe(true);
    expect(cells.filter((cell) => cell.includes(value) || cell.includes(Buffer.from(value).toString('hex')))).toEqual([]);
  });

  it('stores a session token only as its hex SHA-256', async () => {
    const { token, cookie } = await t.member('owner');
    expect((await t.http().get('/api/webhook').set('Cookie', cookie)).status).toBe(200);

    const hashes: { hash: string }[] = await t.dataSource.query('SELECT token_hash AS hash FROM sessions');
    expect(hashes.map(({ hash }) => hash)).toContain(sha256Hex(token));
    for (const { hash } of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const cells = await everyStoredValue();
    for (const form of plainForms(token, token, 'base64url')) {
      expect(
        cells.filter((cell) => cell.toLowerCase().includes(form.toLowerCase())),
        form,
      ).toEqual([]);
    }
  });

  it('stores a wallet token only as its hex SHA-256', async () => {
    const { userId } = await t.member('member');
    const { token } = await t.identity.createWalletToken(userId, 3600);

    const hashes: { hash: string }[] = await t.dataSource.query('SELECT token_hash AS hash FROM access_tokens');
    expect(hashes.map(({ hash }) => hash)).toContain(sha256Hex(token));
    for (const { hash } of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const cells = await everyStoredValue();
    for (const form of plainForms(token, token, 'base64url')) {
      expect(
        cells.filter((cell) => cell.toLowerCase().includes(form.toLowerCase())),
        form,
      ).toEqual([]);
    }
  });

  it('migrates to exactly the schema the entities describe (no drift)', async () => {
    expect(await pendingSchemaChanges(t)).toEqual([]);
  });
});

describe('secrets in the SQLite files', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start('sqlite', { zone: ZONE });
  });
  afterAll(() => t?.close());

  it('never writes a signing secret, a token or a custom header value in plain text to the database file or its WAL, not even transiently', async () => {
    const { userId, token, cookie } = await t.member('owner');
    const wallet = await t.identity.createWalletToken(userId, 3600);
    const created = await t.http().post('/api/webhook/file').set('Cookie', cookie).send({ url: 'https://hooks.example.com/file' });
    expect(created.status).toBe(201);
    const legacy = await t
      .http()
      .post('/api/webhook')
      .set('Cookie', cookie)
      .send({ name: 'file-legacy', url: 'https://hooks.example.com/l' });
    expect(legacy.status).toBe(200);

    const headerValue = `receiver-key-${randomUUID()}`;
    const headed = await t
      .http()
      .patch('/api/webhook/file')
      .set('Cookie', cookie)
      .send({ headers: { 'X-Api-Key': headerValue } });
    expect(headed.status).toBe(200);

    const database = t.config.database;
    if (database.type !== 'sqlite') throw new Error('expected a SQLite database');
    const files = [database.path, `${database.path}-wal`].filter((file) => existsSync(file));
    const bytes = Buffer.concat(files.map((file) => readFileSync(file)));
    const [session]: { hash: string }[] = await t.dataSource.query('SELECT token_hash AS hash FROM sessions WHERE user_id = ?', [userId]);
    expect(bytes.includes(session.hash), 'the scan sees the rows just written').toBe(true);
    const secrets: string[] = [created.body.secret, legacy.body.secret];
    const needles = [...secrets, ...secrets.map((secret) => secret.slice('whsec_'.length)), token, wallet.token, headerValue];
    expect(needles.filter((needle) => bytes.includes(needle))).toEqual([]);
  });
});

/**
 * The statements TypeORM would run to bring the migrated database to the entities' schema.
 * On MariaDB the catalog is read correctly only by TypeORM's `mariadb` driver, so a separate
 * DataSource of that flavor reads the test database.
 */
async function pendingSchemaChanges(t: TestApp): Promise<string[]> {
  const database = t.config.database;
  if (database.type === 'sqlite') {
    const log = await t.dataSource.driver.createSchemaBuilder().log();
    return log.upQueries.map((query) => query.query);
  }
  const reader = new DataSource({
    ...dataSourceOptions({ ...database, flavor: 'mariadb', poolSize: 2 }, t.app.get(SecretBox)),
    entities: t.dataSource.options.entities,
  });
  await reader.initialize();
  try {
    const log = await reader.driver.createSchemaBuilder().log();
    return log.upQueries.map((query) => query.query);
  } finally {
    await reader.destroy();
  }
}
