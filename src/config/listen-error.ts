import { ConfigError } from './environment';

/** A listener of the service and the variables that place it. */
export interface Listener {
  readonly port: number;
  readonly host: string;
  /** PORT and HOST for the API; METRICS_PORT and METRICS_HOST for the metrics listener. */
  readonly variables: { readonly port: string; readonly host: string };
}

export const API_VARIABLES = { port: 'PORT', host: 'HOST' } as const;
export const METRICS_VARIABLES = { port: 'METRICS_PORT', host: 'METRICS_HOST' } as const;

/** What the listener's error codes say of the configuration, and of which of its variables. */
const CAUSES: Readonly<Record<string, { variable: 'port' | 'host'; problem: (port: number, host: string) => string }>> = {
  EADDRINUSE: { variable: 'port', problem: (port, host) => `${port} is in use on ${host}` },
  EACCES: { variable: 'port', problem: (port) => `${port} may not be bound by this user` },
  EADDRNOTAVAIL: { variable: 'host', problem: (_, host) => `${host} is not an address of this machine` },
  ENOTFOUND: { variable: 'host', problem: (_, host) => `${host} does not resolve` },
  EAI_AGAIN: { variable: 'host', problem: (_, host) => `${host} could not be resolved` },
};

/**
 * A failure to listen as the one clear line naming the variable that docs/api.md 2 asks of
 * invalid configuration (a port in use, a host that is not this machine's), for the listener that
 * failed; any other error as it was.
 */
export function listenErrorOf(error: unknown, { port, host, variables }: Listener): unknown {
  const cause = CAUSES[(error as NodeJS.ErrnoException | undefined)?.code ?? ''];
  return cause === undefined ? error : new ConfigError(variables[cause.variable], cause.problem(port, host));
}
