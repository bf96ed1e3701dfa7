import { Inject, Injectable, Optional } from '@nestjs/common';
import type { Logger } from 'pino';
import { PINO } from '../logging/pino.provider';
import { HostResolver } from './host-resolver';
import { AddressPolicy, PUBLIC_ONLY } from './public-address';
import { NOT_PUBLIC } from './url-rules';

/** A URL that passed the static rules and whose host is a name. */
export interface NamedUrl {
  readonly field: string;
  readonly hostname: string;
  /** The port it connects to (`portOf`): a trusted range may allow only some (docs/api.md 10.4). */
  readonly port: number;
}

/** A host name as delivery resolves it (docs/api.md 10.4): its addresses, all public, or why not. */
export type VettedHost =
  | { readonly kind: 'ok'; readonly addresses: readonly string[] }
  | { readonly kind: 'blocked address' | 'does not resolve' | 'dns unavailable' };

export type ResolutionVerdict =
  { readonly kind: 'ok' } | { readonly kind: 'invalid'; readonly messages: string[] } | { readonly kind: 'unavailable' };

/** Answers that mean "this name has no address", as opposed to "the resolver failed". */
const NO_ADDRESS = new Set(['ENOTFOUND', 'ENODATA', 'EBADNAME', 'ENONAME', 'EBADSTR']);

interface Lookup {
  readonly addresses: string[];
  /** Resolver errors other than "no such name / no data" (c-ares codes). */
  readonly failures: string[];
}

/**
 * docs/api.md 5.1 rules 6 and 7: every distinct host of a request is resolved once (A and AAAA in
 * parallel), all concurrently; then, for each URL (with its port), a non-public answer beats a
 * resolver failure, which beats "no address". Across URLs, any 400 beats a 503. Messages never
 * show the addresses.
 */
@Injectable()
export class UrlResolution {
  /** Delivery's lookups on their way, by host name. */
  private readonly vetting = new Map<string, Promise<Lookup>>();

  constructor(
    private readonly resolver: HostResolver,
    @Inject(PINO) private readonly logger: Logger,
    @Optional() private readonly addresses: AddressPolicy = PUBLIC_ONLY,
  ) {}

  async check(urls: readonly NamedUrl[]): Promise<ResolutionVerdict> {
    const lookups = new Map<string, Promise<Lookup>>();
    for (const { hostname } of urls) {
      if (!lookups.has(hostname)) lookups.set(hostname, this.lookup(hostname));
    }
    const outcomes = await Promise.all(
      urls.map(async ({ field, hostname, port }) => ({ field, verdict: judge(await lookups.get(hostname)!, port, this.addresses) })),
    );
    const messages = outcomes.flatMap(({ field, verdict }) => (verdict.kind === 'invalid' ? [`${field}: ${verdict.problem}`] : []));
    if (messages.length > 0) return { kind: 'invalid', messages };
    if (outcomes.some(({ verdict }) => verdict.kind === 'unavailable')) {
      const failures = await Promise.all([...lookups].map(async ([host, lookup]) => ({ host, codes: (await lookup).failures })));
      this.logger.warn({ dns: failures.filter(({ codes }) => codes.length > 0) }, 'dns unavailable');
      return { kind: 'unavailable' };
    }
    return { kind: 'ok' };
  }

  /**
   * Delivery's check, at every attempt: the addresses to connect to on `port`, or why there are
   * none. Attempts to one host that start while a lookup of it is on its way share that lookup:
   * its answer arrives after each of them began, as fresh as one of their own, and a busy
   * dispatcher sends a few queries instead of two per attempt (docs/performance.md).
   */
  async vet(hostname: string, port: number): Promise<VettedHost> {
    let lookup = this.vetting.get(hostname);
    if (lookup === undefined) {
      lookup = this.lookup(hostname).finally(() => this.vetting.delete(hostname));
      this.vetting.set(hostname, lookup);
    }
    const found = await lookup;
    const verdict = judge(found, port, this.addresses);
    if (verdict.kind === 'ok') return { kind: 'ok', addresses: found.addresses };
    if (verdict.kind === 'invalid') return { kind: verdict.problem === NOT_PUBLIC ? 'blocked address' : 'does not resolve' };
    return { kind: 'dns unavailable' };
  }

  private async lookup(hostname: string): Promise<Lookup> {
    // One lookup: A and AAAA on one c-ares channel, under one deadline (host-resolver.ts).
    const answers = await this.resolver.resolveBoth(hostname);
    return {
      addresses: answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : [])),
      failures: answers.flatMap((a) => {
        const code = a.status === 'rejected' ? ((a.reason as { code?: string })?.code ?? 'unknown') : undefined;
        return code === undefined || NO_ADDRESS.has(code) ? [] : [code];
      }),
    };
  }
}

type UrlVerdict = { readonly kind: 'ok' | 'unavailable' } | { readonly kind: 'invalid'; readonly problem: string };

function judge({ addresses, failures }: Lookup, port: number, policy: AddressPolicy): UrlVerdict {
  if (addresses.some((address) => !policy.allows(address, port))) return { kind: 'invalid', problem: NOT_PUBLIC };
  if (failures.length > 0) return { kind: 'unavailable' };
  if (addresses.length === 0) return { kind: 'invalid', problem: 'does not resolve' };
  return { kind: 'ok' };
}
