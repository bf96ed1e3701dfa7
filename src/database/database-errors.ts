import { CannotExecuteNotConnectedError, ConnectionIsNotSetError, TypeORMError } from 'typeorm';

/** Classifies driver errors (mysql2, better-sqlite3), bare or wrapped in TypeORM's QueryFailedError. */

interface DriverError {
  code?: string;
  errno?: number;
  fatal?: boolean;
}

const driverError = (error: unknown): DriverError => {
  const e = error as { driverError?: DriverError } & DriverError;
  return (e?.driverError ?? e ?? {}) as DriverError;
};

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'POOL_CLOSED',
  'POOL_ACQUIRE_TIMEOUT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
]);

/** The database cannot be reached or cannot serve right now: answer 503, not 500. */
export const isDatabaseUnavailable = (error: unknown): boolean => {
  const e = driverError(error);
  if ((e.code !== undefined && UNREACHABLE.has(e.code)) || e.fatal === true) return true;
  // A DataSource that is not (or no longer) connected. TypeORM's MySQL driver and
  // better-sqlite3 say so only in their messages.
  if (error instanceof ConnectionIsNotSetError || error instanceof CannotExecuteNotConnectedError) return true;
  if (error instanceof TypeORMError && /^Connection is not established/.test(error.message)) return true;
  if (error instanceof Error && error.message === 'Pool is closed.') return true; // mysql2, at shutdown
  return e instanceof TypeError && /database connection is not open/.test(e.message);
};

export const isDeadlock = (error: unknown): boolean => {
  const { code } = driverError(error);
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
};

export const isUniqueViolation = (error: unknown): boolean => {
  const { code } = driverError(error);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
};

/** A row that names a parent which does not exist (an event for an unknown organization). */
export const isForeignKeyViolation = (error: unknown): boolean => {
  const { code } = driverError(error);
  return code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_NO_REFERENCED_ROW' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
};
