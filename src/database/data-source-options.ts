import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/database-config';
import type { SecretBox } from '../crypto/secret-box';
import { mysqlMigrations } from './migrations/mysql';
import { sqliteMigrations } from './migrations/sqlite';

/**
 * TypeORM options for the configured store. Schema changes come only from the migrations. The
 * entities are not listed here: each feature module registers its own (`forFeature`), and
 * the server loads them from there (`autoLoadEntities`). The SecretBox is for the migrations
 * that reseal stored secrets.
 */
export function dataSourceOptions(database: DatabaseConfig, secrets: SecretBox): DataSourceOptions {
  const common = { synchronize: false, migrationsRun: false, logging: false } as const;
  if (database.type === 'sqlite') {
    return {
      ...common,
      type: 'better-sqlite3',
      database: database.path,
      migrations: sqliteMigrations(secrets),
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
    migrations: mysqlMigrations(secrets),
    timezone: 'Z',
    charset: 'utf8mb4_unicode_ci',
    bigNumberStrings: false,
    poolSize: database.poolSize,
    connectTimeout: database.connectTimeoutMs,
    // Database.atomically sends a hot path's transaction as one query (ingest: docs/performance.md).
    // Every statement takes its values as parameters, so a value never becomes SQL.
    multipleStatements: true,
  };
}

/**
 * The driver module of the configured store, handed to TypeORM (`driver`) rather than left to
 * it: TypeORM requires it by name at run time, out of the bundler's sight, so that the bundle
 * would lack mysql2 and the image's runtime packages better-sqlite3 (scripts/build.mjs). Each
 * store loads only its own.
 */
export async function driverModule(database: DatabaseConfig): Promise<unknown> {
  return database.type === 'sqlite' ? (await import('better-sqlite3')).default : (await import('mysql2')).default;
}
