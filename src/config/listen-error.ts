import { ConfigError } from './environment';

/** What the listener's error codes say of the configuration, and of which variable. */
const CAUSES: Readonly<Record<string, { variable: 'PORT' | 'HOST'; problem: (port: number, host: string) => string }>> = {
  EADDRINUSE: { variable: 'PORT', problem: (port, host) => `${port} is in use on ${host}` },
  EACCES: { variable: 'PORT', problem: (port) => `${port} may not be bound by this user` },
  EADDRNOTAVAIL: { variable: 'HOST', problem: (_, host) => `${host} is not an address of this machine` },
  ENOTFOUND: { variable: 'HOST', problem: (_, host) => `${host} does not resolve` },
  EAI_AGAIN: { variable: 'HOST', problem: (_, host) => `${host} could not be resolved` },
};

/**
 * A failure to listen on PORT and HOST as the one clear line naming the variable that docs/api.md 2
 * asks of invalid configuration (a port in use, a host that is not this machine's); any other
 * error as it was.
 */
export function listenErrorOf(error: unknown, { port, host }: { port: number; host: string }): unknown {
  const cause = CAUSES[(error as NodeJS.ErrnoException | undefined)?.code ?? ''];
  return cause === undefined ? error : new ConfigError(cause.variable, cause.problem(port, host));
}
