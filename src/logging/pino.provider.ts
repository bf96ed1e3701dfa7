import pino, { DestinationStream, Logger } from 'pino';

/** DI token of the process's pino logger. */
export const PINO = Symbol('PINO');

/**
 * Anything that names a credential is censored wherever it appears in a log object, as a
 * second line of defence: the code logs no headers, bodies or query parameters at all.
 */
export const REDACTED_PATHS = [
  'authorization', 'cookie', 'secret', 'token', 'password', 'parameters',
  '*.authorization', '*.cookie', '*.secret', '*.token', '*.password', '*.parameters',
  '*.headers.authorization', '*.headers.cookie', '*.headers.sessionid',
];

export function createPino(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'platform-api' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
