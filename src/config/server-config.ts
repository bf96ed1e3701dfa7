import { isIP } from 'node:net';
import { ConfigError } from './environment';

// The HTTP server's and the resolver's settings: API_PREFIX, ALLOWED_ORIGINS, METRICS_PORT and METRICS_HOST, DNS_SERVERS.

export function parseApiPrefix(value: string): string {
  const prefix = value.replace(/\/+$/, '');
  if (prefix !== '' && !/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix)) {
    throw new ConfigError('API_PREFIX', `invalid value ${JSON.stringify(value)} (a path such as /api, or empty)`);
  }
  return prefix;
}

export function parseOrigins(value: string): string[] {
  return value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
    .map((origin) => {
      let url: URL;
      try {
        url = new URL(origin);
      } catch {
        throw new ConfigError('ALLOWED_ORIGINS', `invalid origin ${JSON.stringify(origin)} (scheme://host[:port], comma-separated)`);
      }
      if (url.origin === 'null' || `${url.origin}/` !== url.href) {
        throw new ConfigError('ALLOWED_ORIGINS', `invalid origin ${JSON.stringify(origin)} (scheme://host[:port], comma-separated)`);
      }
      return url.origin;
    });
}

/** Metrics are never served on the public port: the two must differ. */
export function metricsPortBeside(port: number, metricsPort: number): number {
  if (metricsPort === port)
    throw new ConfigError('METRICS_PORT', `must differ from PORT (${port}): metrics are never served on the public port`);
  return metricsPort;
}

/**
 * METRICS_HOST: the metrics listener's bind address (docs/api.md 9), an IP address of this host.
 * Not a name: the system would resolve it (hosts file, either family) and might bind an interface
 * the operator did not mean to expose; the listener has no authentication.
 */
export function parseMetricsHost(value: string): string {
  if (isIP(value) === 0) {
    throw new ConfigError(
      'METRICS_HOST',
      `invalid address ${JSON.stringify(value)} (an IP address of this host, such as 127.0.0.1 or ::1)`,
    );
  }
  return value;
}

export function parseDnsServers(value: string): string[] {
  const servers = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (servers.length === 0) throw new ConfigError('DNS_SERVERS', 'empty list');
  return servers.map((server) => {
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(server) ?? /^([^:]+):(\d+)$/.exec(server);
    const [address, port] = match ? [match[1], Number(match[2] ?? 53)] : [server, 53];
    if (isIP(address) === 0 || !(port >= 1 && port <= 65535)) {
      throw new ConfigError('DNS_SERVERS', `invalid server ${JSON.stringify(server)} (ip or ip:port, comma-separated)`);
    }
    // The forms c-ares takes: a bare address, or ip:port / [v6]:port.
    return port === 53 && !match ? address : isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
  });
}
