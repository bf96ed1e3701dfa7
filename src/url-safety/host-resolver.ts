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
 * DNS_TIMEOUT_MS is a deadline for the whole lookup: c-ares's own timeout is per query and
 * server (one try took about twice the timeout against a resolver that never answers, and more
 * with several servers), so each lookup also races a timer that cancels its channel and fails
 * with ETIMEOUT, which counts as a resolver failure (docs/api.md 5.1 rule 6b).
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
    return this.withDeadline((channel) => channel.resolve4(name));
  }

  resolve6(name: string): Promise<string[]> {
    return this.withDeadline((channel) => channel.resolve6(name));
  }

  private async withDeadline(lookup: (channel: Resolver) => Promise<string[]>): Promise<string[]> {
    const channel = this.channel();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        reject(Object.assign(new Error(`no DNS answer within ${this.timeoutMs} ms`), { code: 'ETIMEOUT' }));
        channel.cancel();
      }, this.timeoutMs);
    });
    try {
      return await Promise.race([lookup(channel), deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  private channel(): Resolver {
    const resolver = new Resolver({ timeout: this.timeoutMs, tries: 1 });
    if (this.servers) resolver.setServers([...this.servers]);
    return resolver;
  }
}
