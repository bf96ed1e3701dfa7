import { Resolver } from 'node:dns/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';

/** Resolves webhook host names. A port, so that unit tests can answer without a network. */
export abstract class HostResolver {
  abstract resolve4(name: string): Promise<string[]>;
  abstract resolve6(name: string): Promise<string[]>;
}

/**
 * c-ares, one try, DNS_TIMEOUT_MS, the servers of DNS_SERVERS. Never `dns.lookup`: it reads
 * /etc/hosts and search domains, and blocks a libuv thread per call.
 *
 * A new c-ares channel for every lookup (about 40 µs): a channel that has talked to a server for
 * a minute replaces the configured timeout with one derived from the latencies it has seen
 * (down to 250 ms), so a resolver that is briefly slower than usual, though well within
 * DNS_TIMEOUT_MS, would make requests fail with 503 `dns unavailable`.
 */
@Injectable()
export class CaresHostResolver extends HostResolver {
  private readonly timeoutMs: number;
  private readonly servers?: readonly string[];

  constructor(config: AppConfig) {
    super();
    this.timeoutMs = config.dnsTimeoutMs;
    this.servers = config.dnsServers;
    this.channel(); // an invalid server list fails at start, not on the first lookup
  }

  resolve4(name: string): Promise<string[]> {
    return this.channel().resolve4(name);
  }

  resolve6(name: string): Promise<string[]> {
    return this.channel().resolve6(name);
  }

  private channel(): Resolver {
    const resolver = new Resolver({ timeout: this.timeoutMs, tries: 1 });
    if (this.servers) resolver.setServers([...this.servers]);
    return resolver;
  }
}
