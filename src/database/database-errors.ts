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
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
  'POOL_CLOSED', 'SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_CANTOPEN', 'SQLITE_IOERR',
]);

/** The database cannot be reached or cannot serve right now: answer 503, not 500. */
export const isDatabaseUnavailable = (error: unknown): boolean => {
  const e = driverError(error);
  return (e.code !== undefined && UNREACHABLE.has(e.code)) || e.fatal === true;
};

export const isDeadlock = (error: unknown): boolean => {
  const { code } = driverError(error);
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT';
};

export const isUniqueViolation = (error: unknown): boolean => {
  const { code } = driverError(error);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
};
