import { describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../../../config/app-config';
import type { OAuth2Settings } from '../../../webhooks/receiver-auth';
import type { PinnedAnswer, PinnedHttp, PinnedRequest } from '../pinned-http';
import type { Tracing } from '../../../tracing/tracing';
import { OAuthTokens } from './oauth-tokens';

const OWNER = { organizationId: 7, webhookId: 1, identity: 'a' };
const CONFIG = { delivery: { timeoutMs: 5000 } } as AppConfig;
const SETTINGS: OAuth2Settings = { type: 'oauth2', tokenUrl: 'https://auth.example.com/token', clientId: 'id', clientSecret: 's3cret' };
const answered = (status: number, body?: unknown): PinnedAnswer => ({
  kind: 'answered',
  status,
  headers: {},
  body: body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body)),
});

/** OAuthTokens over a PinnedHttp that answers `answer` to every request, recorded, and a Tracing that records its spans. */
function setUp(answer: (request: PinnedRequest) => Promise<PinnedAnswer>) {
  const post = vi.fn(answer);
  const spans: unknown[][] = [];
  const tracing = {
    tokenSpan: (...begun: unknown[]) => ({ end: (...ended: unknown[]) => spans.push([...begun, ...ended]) }),
  };
  return { tokens: new OAuthTokens({ post } as unknown as PinnedHttp, tracing as unknown as Tracing, CONFIG), post, spans };
}

describe('OAuthTokens (docs/api.md 10.16)', () => {
  it("asks the token URL through PinnedHttp for the webhook's organization, its answer read at most 64 KiB far", async () => {
    const { tokens, post } = setUp(async () => answered(200, { access_token: 't1', token_type: 'bearer' }));
    expect(await tokens.tokenFor(OWNER, SETTINGS, new AbortController().signal)).toEqual({ ok: true, token: { value: 't1' } });
    expect(post).toHaveBeenCalledWith(
      expect.objectContaining({ url: SETTINGS.tokenUrl, readAtMost: 65_536, organizationId: 7, body: 'grant_type=client_credentials' }),
    );
  });

  it('gives the request a deadline of its own, which the attempt that made it ending early does not end', async () => {
    let answer: (answer: PinnedAnswer) => void = () => undefined;
    const { tokens, post } = setUp(() => new Promise((resolve) => (answer = resolve)));
    const deadline = new AbortController();
    const first = tokens.tokenFor(OWNER, SETTINGS, deadline.signal);
    deadline.abort();
    expect(await first).toEqual({ ok: false, failure: { reason: 'timeout' } });
    const request = post.mock.calls[0][0];
    expect(request.signal.aborted).toBe(false);
    const second = tokens.tokenFor(OWNER, SETTINGS, new AbortController().signal);
    answer(answered(200, { access_token: 't1' }));
    expect(await second).toEqual({ ok: true, token: { value: 't1' } });
    expect(post).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['an answer that is not 2xx', answered(500), { reason: 'answered', status: 500 }],
    ['a redirect', answered(302, { access_token: 't1' }), { reason: 'answered', status: 302 }],
    ['a 2xx without a token', answered(200, { error: 'none' }), { reason: 'answered', status: 200 }],
    ['an address refused', { kind: 'blocked address' } as const, { reason: 'blocked address' }],
    ['no answer in time', { kind: 'timeout' } as const, { reason: 'timeout' }],
  ])('fails for %s, with the reason', async (_, answer, failure) => {
    const { tokens } = setUp(async () => answer);
    expect(await tokens.tokenFor(OWNER, SETTINGS, new AbortController().signal)).toEqual({ ok: false, failure });
  });

  it("fails an attempt that waits for another's request once its own deadline passes", async () => {
    let answer: (answer: PinnedAnswer) => void = () => undefined;
    const { tokens, post } = setUp(() => new Promise((resolve) => (answer = resolve)));
    const first = tokens.tokenFor(OWNER, SETTINGS, new AbortController().signal);
    const deadline = new AbortController();
    const second = tokens.tokenFor(OWNER, SETTINGS, deadline.signal);
    deadline.abort();
    expect(await second).toEqual({ ok: false, failure: { reason: 'timeout' } });
    answer(answered(200, { access_token: 't1' }));
    expect(await first).toEqual({ ok: true, token: { value: 't1' } });
    expect(post).toHaveBeenCalledTimes(1);
  });

  it('asks again after the receiver refused the token', async () => {
    let n = 0;
    const { tokens } = setUp(async () => answered(200, { access_token: `t${++n}` }));
    const signal = new AbortController().signal;
    await tokens.tokenFor(OWNER, SETTINGS, signal);
    tokens.refused(OWNER.webhookId, OWNER.identity, 't1');
    expect(await tokens.tokenFor(OWNER, SETTINGS, signal)).toEqual({ ok: true, token: { value: 't2' } });
  });

  it("traces each request under the attempt's span (docs/api.md 10.17): its token URL, the status and the failure, never the form or the token", async () => {
    const { tokens, spans } = setUp(async () => answered(503));
    const attempt = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    await tokens.tokenFor(OWNER, SETTINGS, new AbortController().signal, attempt);
    expect(spans).toEqual([[attempt, SETTINGS.tokenUrl, { 'http.response.status_code': 503, 'webhook.token.failure': 'answered' }, true]]);
  });
});
