import { randomBytes } from 'node:crypto';
import type { AppConfig } from '../../src/config/app-config';
import { SecretBox } from '../../src/crypto/secret-box';
import { mysqlMigrations } from '../../src/database/migrations/mysql';
import { sqliteMigrations } from '../../src/database/migrations/sqlite';
import type { DatabaseKind } from './databases';

/** A SecretBox under a throwaway key, for code that needs one but never opens what a test stored. */
export const throwawaySecretBox = (): SecretBox =>
  new SecretBox({ secretKeys: { current: randomBytes(32), previous: [] } } as unknown as AppConfig);

/** The names of a dialect's migrations, in the order they are applied. */
export const migrationNames = (kind: DatabaseKind): string[] =>
  (kind === 'mariadb' ? mysqlMigrations : sqliteMigrations)(throwawaySecretBox()).map((Migration) => new Migration().name);
