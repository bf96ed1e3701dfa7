import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAppConfig } from '../../src/config/app-config';
import { CaresHostResolver } from '../../src/url-safety/host-resolver';
import { UrlResolution } from '../../src/url-safety/url-resolution';
import { startDnsServer, TestDnsServer } from '../support/dns-server';

/*
 * docs/api.md 5.1 rule 6: a lookup gets DNS_TIMEOUT_MS. c-ares (1.34, ares_metrics.c) replaces a
 * channel's configured timeout for a server once that server has answered three queries on it:
 * then 5x the average latency it has seen, at least 250 ms. On a long-lived channel, a resolver
 * that has been answering in a millisecond and then takes a second would be "unavailable" (503)
 * well within DNS_TIMEOUT_MS (found by the 5-minute soak). So each lookup gets a channel of its
 * own, which sends only its A and AAAA queries and never reaches three answers.
 */

const FAST = 'fast.example.com';
const SLOW = 'slow.example.com';
const HALF = 'half.example.com';
/** Answers a channel would have seen before this lookup: c-ares adapts after three (20 fast lookups: a shared channel answered ETIMEOUT after 1 s). */
const HISTORY = 20;
const SLOW_ANSWER_MS = 1_200;

const resolverFor = (servers: string[], timeoutMs: number) =>
  new CaresHostResolver(
    loadAppConfig({ DNS_SERVERS: servers.join(','), DNS_TIMEOUT_MS: String(timeoutMs), SECRET_KEY: Buffer.alloc(32).toString('base64') }),
  );

let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer({
    [FAST]: { A: ['93.184.215.14'] },
    [SLOW]: { A: ['93.184.215.34'], delayMs: SLOW_ANSWER_MS },
    [HALF]: { A: ['93.184.215.50'], AAAA: 'TIMEOUT' },
  });
});
afterAll(() => dns?.close());

it('waits DNS_TIMEOUT_MS for a slow answer after many fast ones', async () => {
  const resolver = resolverFor([dns.address], 5000);
  for (let i = 0; i < HISTORY; i++) {
    expect(await resolver.resolve4(FAST)).toEqual(['93.184.215.14']);
    const [a] = await resolver.resolveBoth(FAST);
    expect(a).toEqual({ status: 'fulfilled', value: ['93.184.215.14'] });
  }
  expect(await resolver.resolve4(SLOW)).toEqual(['93.184.215.34']);
  const [a] = await resolver.resolveBoth(SLOW);
  expect(a).toEqual({ status: 'fulfilled', value: ['93.184.215.34'] });
});

describe('one c-ares channel per lookup', () => {
  it("asks a host's A and AAAA from one channel (one socket), as a URL check does", async () => {
    const resolution = new UrlResolution(resolverFor([dns.address], 2000), pino({ level: 'silent' }));
    const from = dns.questions.length;
    expect(await resolution.check([{ field: 'url', hostname: FAST, port: 443 }])).toEqual({ kind: 'ok' });
    const asked = dns.questions.slice(from).map((question, i) => ({ question, port: dns.sourcePorts[from + i] }));
    expect(asked.map(({ question }) => question).sort()).toEqual([`A ${FAST}`, `AAAA ${FAST}`]);
    expect(asked[0].port).toBe(asked[1].port);
  });

  it('keeps the answer that came and times out the one that did not, at one deadline', async () => {
    const started = performance.now();
    const [a, aaaa] = await resolverFor([dns.address], 1000).resolveBoth(HALF);
    expect(a).toEqual({ status: 'fulfilled', value: ['93.184.215.50'] });
    expect(aaaa).toMatchObject({ status: 'rejected', reason: { code: 'ETIMEOUT' } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(995);
  });
});

describe('DNS_TIMEOUT_MS is a deadline for the whole lookup, against resolvers that never answer', () => {
  const TIMEOUT_MS = 1000;
  /** Scheduling slack on a busy two-core machine; c-ares alone took about 2x the timeout. */
  const SLACK_MS = 300;
  let silent: TestDnsServer[];
  beforeAll(async () => {
    silent = await Promise.all([startDnsServer({ [FAST]: 'TIMEOUT' }), startDnsServer({ [FAST]: 'TIMEOUT' })]);
  });
  afterAll(() => Promise.all(silent.map((server) => server.close())));

  async function timedFailure(
    servers: string[],
    lookup: 'resolve4' | 'resolve6' | 'resolveBoth',
  ): Promise<{ codes: unknown[]; elapsedMs: number }> {
    const resolver = resolverFor(servers, TIMEOUT_MS);
    const started = performance.now();
    const codeOf = (reason: { code?: unknown }) => reason.code;
    const codes =
      lookup === 'resolveBoth'
        ? (await resolver.resolveBoth(FAST)).map((answer) => (answer.status === 'rejected' ? codeOf(answer.reason) : 'answered'))
        : [await resolver[lookup](FAST).then(() => 'answered', codeOf)];
    return { codes, elapsedMs: performance.now() - started };
  }

  it.each(['resolve4', 'resolve6'] as const)('fails %s with ETIMEOUT within DNS_TIMEOUT_MS with one server', async (lookup) => {
    const { codes, elapsedMs } = await timedFailure([silent[0].address], lookup);
    expect(codes).toEqual(['ETIMEOUT']);
    expect(elapsedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });

  it('fails with ETIMEOUT within DNS_TIMEOUT_MS with two servers', async () => {
    const { codes, elapsedMs } = await timedFailure(
      silent.map((server) => server.address),
      'resolve4',
    );
    expect(codes).toEqual(['ETIMEOUT']);
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });

  it.each([1, 2])('fails both queries of a lookup with ETIMEOUT at one deadline with %i server(s)', async (count) => {
    const { codes, elapsedMs } = await timedFailure(
      silent.slice(0, count).map((server) => server.address),
      'resolveBoth',
    );
    expect(codes).toEqual(['ETIMEOUT', 'ETIMEOUT']);
    expect(elapsedMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(elapsedMs).toBeLessThan(TIMEOUT_MS + SLACK_MS);
  });
});
