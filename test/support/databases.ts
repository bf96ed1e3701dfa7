import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { describe, inject } from 'vitest';

export type DatabaseKind = 'mariadb' | 'sqlite';

/** A throwaway database: a fresh MariaDB schema or a fresh SQLite file. */
export interface TestDatabase {
  readonly kind: DatabaseKind;
  readonly url: string;
  drop(): Promise<void>;
}

export const mariadbAvailable = (): boolean => inject('mariadbUrl') !== null;

const serverUrl = (): string => {
  const url = inject('mariadbUrl');
  if (url === null) throw new Error('MariaDB is not available in this run');
  return url;
};

export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'platform-api-test-'));
    return { kind, url: `sqlite:${join(dir, 'test.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `pa_test_${randomBytes(6).toString('hex')}`;
  const admin = await mysql.createConnection({ uri: serverUrl() });
  await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  await admin.end();
  return {
    kind,
    url: `${serverUrl()}/${name}`,
    drop: async () => {
      const connection = await mysql.createConnection({ uri: serverUrl() });
      await connection.query(`DROP DATABASE IF EXISTS ${name}`);
      await connection.end();
    },
  };
}

/**
 * Runs a suite once per database. MariaDB is skipped (loudly, by the global setup) only when
 * it is unreachable and CI is not set.
 */
export function describeEachDatabase(title: string, suite: (kind: DatabaseKind) => void): void {
  for (const kind of ['mariadb', 'sqlite'] as const) {
    const run = kind === 'mariadb' && !mariadbAvailable() ? describe.skip : describe;
    run(`${title} [${kind}]`, () => suite(kind));
  }
}

/** For suites that only make sense with many connections (concurrency, multi-instance). */
export function describeOnMariadb(title: string, suite: () => void): void {
  (mariadbAvailable() ? describe : describe.skip)(`${title} [mariadb]`, suite);
}
