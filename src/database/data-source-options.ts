import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/database-config';
import type { SecretBox } from '../crypto/secret-box';
import { mysqlMigrations } from './migrations/mysql';
import { sqliteMigrations } from './migrations/sqlite';

const TYPEORM_POOL_SIZE = 2;

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
    // Only the migrations use TypeORM's own pool: Database has pools of its own (database.ts).
    poolSize: TYPEORM_POOL_SIZE,
    connectTimeout: database.connectTimeoutMs,
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
