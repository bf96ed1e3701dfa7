import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { type TraceContext, traceHeadersOf } from '../../tracing/trace-context';
import { type AttemptOutcome, retryAfterOf } from './attempt-outcome';
import { PinnedHttp } from './pinned-http';
import { ReceiverAuthentication, type ReceiverCredentials } from './receiver-auth/receiver-authentication';

/** The receiver's answer body is read at most this far, then dropped (docs/api.md 10.5). */
const MAX_ANSWER_BYTES = 1024;

/** One attempt's request: the organization whose webhook it is, the URL, the headers, the held body and how it authenticates. */
export interface AttemptRequest {
  readonly organizationId: number;
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The held one: undici writes it as it is, no copy per attempt. */
  readonly body: Buffer;
  /** The attempt's span (docs/api.md 10.17): written as `traceparent` at the wire; a token request hangs from it. */
  readonly trace: TraceContext;
  readonly credentials?: ReceiverCredentials;
}

/**
 * One attempt's HTTP request (docs/api.md 10.4, 10.5, 10.16): authenticated as its webhook says
 * (ReceiverAuthentication), then a POST through PinnedHttp (the URL rules again, every address
 * vetted, the connection pinned to one, the proxy), all under one deadline; the answer read at
 * most MAX_ANSWER_BYTES far and dropped.
 */
@Injectable()
export class WebhookSender {
  private readonly timeoutMs: number;

  constructor(
    private readonly http: PinnedHttp,
    private readonly authentication: ReceiverAuthentication,
    config: AppConfig,
  ) {
    this.timeoutMs = config.delivery.timeoutMs;
  }

  async send({ organizationId, url, headers, body, trace, credentials }: AttemptRequest): Promise<AttemptOutcome> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const signal = AbortSignal.timeout(this.timeoutMs);
    const traced = { ...headers, ...traceHeadersOf(trace) };
    const presented = await this.authentication.present(organizationId, traced, credentials, trace, signal);
    if (!presented.ok) return { kind: 'auth failed', failure: presented.failure, durationMs: took() };
    const { headers: sent, client, refused } = presented;
    const answer = await this.http.post({ url, headers: sent, body, signal, readAtMost: MAX_ANSWER_BYTES, organizationId, client });
    if (answer.kind !== 'answered') return { kind: answer.kind, durationMs: took() };
    if (answer.status === 401) refused();
    const retryAfterSeconds = retryAfterOf(answer.headers['retry-after']);
    return { kind: 'answered', status: answer.status, durationMs: took(), ...(retryAfterSeconds !== undefined && { retryAfterSeconds }) };
  }
}
