import pino, { DestinationStream, Logger } from 'pino';

/** DI token of the process's pino logger. */
export const PINO = Symbol('PINO');

const CREDENTIAL_KEYS = ['authorization', 'cookie', 'sessionid', 'secret', 'token', 'password', 'parameters'];

/**
 * Anything that names a credential is censored wherever this code logs an object, as a second
 * line of defence: the code logs no headers, bodies or query parameters at all. Explicit paths
 * (at the top, and under the names logged objects have) rather than wildcards, which would
 * cost more than the rest of a log line.
 */
export const REDACTED_PATHS = ['', 'err.', 'req.', 'req.headers.', 'headers.', 'res.headers.'].flatMap((prefix) =>
  CREDENTIAL_KEYS.map((key) => `${prefix}${key}`),
);

export function createPino(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'platform-api' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? bufferedStdout(),
  );
}

/**
 * Standard output, written in blocks of 4 KiB rather than a system call per line (that was a
 * large share of each request's CPU), and flushed at least every second, so a quiet server's
 * lines are not held back. Shutdown flushes it (main.ts).
 */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => stream.flush(), 1000).unref();
  return stream;
}
