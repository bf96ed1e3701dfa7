import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { ConfigError, Environment } from './environment';

// The store (docs/api.md 1, 2): DATABASE_URL and the MySQL pool's limits.

export type DatabaseConfig =
  | {
      readonly type: 'mysql';
      /** From the URL scheme: TypeORM reads a MariaDB catalog differently from a MySQL one. */
      readonly flavor: 'mysql' | 'mariadb';
      readonly url: string;
      readonly poolSize: number;
      /** Also the longest wait for a pooled connection. */
      readonly connectTimeoutMs: number;
      readonly queryTimeoutMs: number;
    }
  | { readonly type: 'sqlite'; readonly path: string };

export const DEFAULT_DATABASE_URL = 'sqlite:data/platform-api.sqlite';

type MysqlLimits = Pick<Extract<DatabaseConfig, { type: 'mysql' }>, 'poolSize' | 'connectTimeoutMs' | 'queryTimeoutMs'>;

export const databaseOf = (e: Environment, cwd: string): DatabaseConfig =>
  parseDatabaseUrl(e.DATABASE_URL ?? DEFAULT_DATABASE_URL, cwd, {
    poolSize: e.DB_POOL_SIZE ?? 10,
    connectTimeoutMs: e.DB_CONNECT_TIMEOUT_MS ?? 2000,
    queryTimeoutMs: e.DB_QUERY_TIMEOUT_MS ?? 5000,
  });

export function parseDatabaseUrl(value: string, cwd: string, limits: MysqlLimits): DatabaseConfig {
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length);
    if (path === '') throw new ConfigError('DATABASE_URL', 'sqlite: needs a file path, as in sqlite:data/platform-api.sqlite');
    return { type: 'sqlite', path: path === ':memory:' || isAbsolute(path) ? path : resolve(cwd, path) };
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('DATABASE_URL', 'must be mysql://user:pass@host:port/db or sqlite:path');
  }
  if ((url.protocol !== 'mysql:' && url.protocol !== 'mariadb:') || url.hostname === '' || url.pathname.length < 2) {
    throw new ConfigError('DATABASE_URL', 'must be mysql://user:pass@host:port/db or sqlite:path');
  }
  const flavor = url.protocol === 'mariadb:' ? 'mariadb' : 'mysql';
  return { type: 'mysql', flavor, url: `mysql:${url.href.slice(url.protocol.length)}`, ...limits };
}

/** The database without credentials, hashed: the same for every instance of one deployment. */
export function databaseIdentity(database: DatabaseConfig): string {
  let where = database.type === 'sqlite' ? database.path : database.url;
  if (database.type === 'mysql') {
    const url = new URL(database.url);
    where = `${url.hostname}:${url.port || 3306}${url.pathname}`;
  }
  return createHash('sha256').update(where).digest('hex').slice(0, 12);
}
