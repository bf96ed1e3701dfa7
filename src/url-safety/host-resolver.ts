import { Resolver } from 'node:dns/promises';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';

/** One name's A and AAAA answers: the addresses, or why each query failed. */
export type FamilyAnswers = readonly [a: PromiseSettledResult<string[]>, aaaa: PromiseSettledResult<string[]>];

/** Resolves webhook host names. A port, so that unit tests can answer without a network. */
export abstract class HostResolver {
  abstract resolve4(name: string): Promise<string[]>;
  abstract resolve6(name: string): Promise<string[]>;

  /** A and AAAA of one name, asked in parallel: one lookup of docs/api.md 5.1 rule 6. */
  async resolveBoth(name: string): Promise<FamilyAnswers> {
    const [a, aaaa] = await Promise.allSettled([this.resolve4(name), this.resolve6(name)]);
    return [a, aaaa];
  }
}

/**
 * c-ares, one try, DNS_TIMEOUT_MS, the servers of DNS_SERVERS. Never `dns.lookup`: it reads
 * /etc/hosts and search domains, and blocks a libuv thread per call.
 *
 * DNS_TIMEOUT_MS is a deadline for the whole lookup: c-ares's own timeout is per query and
 * server (one try took about twice the timeout against a resolver that never answers, and more
 * with several servers), so each lookup also races one timer, for its A and AAAA queries both,
 * that cancels its channel and fails what is still unanswered with ETIMEOUT, which counts as a
 * resolver failure (docs/api.md 5.1 rule 6b).
 *
 * A new c-ares channel for every lookup (about 40 µs), its A and AAAA queries both on it: once a
 * server has answered three queries on a channel, c-ares (1.34, ares_metrics.c) stops using the
 * configured timeout for it and derives one from the latencies it has seen (5x their average, at
 * least 250 ms; the average of the current or previous minute, else of longer spans down to the
 * channel's whole life). On a long-lived channel, a resolver briefly slower than usual, though
 * well within DNS_TIMEOUT_MS, would make requests fail with 503 `dns unavailable`. A channel
 * that only ever sends one lookup's two queries never gets there, and the deadline may cancel it
 * outright: it is that lookup's own.
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

  override async resolveBoth(name: string): Promise<FamilyAnswers> {
    const [a, aaaa] = await this.onOneChannel((channel) => [channel.resolve4(name), channel.resolve6(name)]);
    return [a, aaaa];
  }

  async resolve4(name: string): Promise<string[]> {
    return valueOf((await this.onOneChannel((channel) => [channel.resolve4(name)]))[0]);
  }

  async resolve6(name: string): Promise<string[]> {
    return valueOf((await this.onOneChannel((channel) => [channel.resolve6(name)]))[0]);
  }

  /** The queries `ask` sends on a new channel, each settled by its answer or by the one deadline. */
  private async onOneChannel(ask: (channel: Resolver) => Promise<string[]>[]): Promise<PromiseSettledResult<string[]>[]> {
    const channel = this.channel();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // Rejected before the cancel, so the queries still waiting fail with ETIMEOUT, not ECANCELLED.
        reject(Object.assign(new Error(`no DNS answer within ${this.timeoutMs} ms`), { code: 'ETIMEOUT' }));
        channel.cancel();
      }, this.timeoutMs);
    });
    try {
      return await Promise.allSettled(ask(channel).map((query) => Promise.race([query, deadline])));
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

function valueOf(answer: PromiseSettledResult<string[]>): string[] {
  if (answer.status === 'rejected') throw answer.reason;
  return answer.value;
}
