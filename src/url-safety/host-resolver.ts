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
 */
@Injectable()
export class CaresHostResolver extends HostResolver {
  private readonly resolver: Resolver;

  constructor(config: AppConfig) {
    super();
    this.resolver = new Resolver({ timeout: config.dnsTimeoutMs, tries: 1 });
    if (config.dnsServers) this.resolver.setServers([...config.dnsServers]);
  }

  resolve4(name: string): Promise<string[]> {
    return this.resolver.resolve4(name);
  }

  resolve6(name: string): Promise<string[]> {
    return this.resolver.resolve6(name);
  }
}
