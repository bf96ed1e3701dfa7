import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/app-config';
import { MYSQL_MIGRATIONS } from './migrations/mysql';
import { SQLITE_MIGRATIONS } from './migrations/sqlite';

/**
 * TypeORM options for the configured store. Schema changes come only from the migrations. The
 * entities are not listed here: each feature module registers its own (`forFeature`), and
 * the server loads them from there (`autoLoadEntities`).
 */
export function dataSourceOptions(database: DatabaseConfig): DataSourceOptions {
  const common = { synchronize: false, migrationsRun: false, logging: false } as const;
  if (database.type === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      database: database.path,
      migrations: SQLITE_MIGRATIONS,
      enableWAL: database.path !== ':memory:',
      prepareDatabase: (db: { pragma(source: string): unknown }) => {
        db.pragma('busy_timeout = 5000');
      },
    };
  }
  return {
    ...common,
    type: database.flavor,
    url: database.url,
    migrations: MYSQL_MIGRATIONS,
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    bigNumberStrings: false,
    poolSize: database.poolSize,
    connectTimeout: database.connectTimeoutMs,
  };
}
