import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Agent } from 'undici';
import { readUpTo } from '../../common/read-up-to';
import { AppConfig } from '../../config/app-config';

/** A processor's answer body is read at most this far; a payload is a few kilobytes. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** What one call to a processor came to: its status and, for a 2xx, its body parsed (undefined when it is not JSON). */
export type ProcessorAnswer =
  | { readonly kind: 'answered'; readonly status: number; readonly body: unknown }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'unreachable' };

/** One POST to a processor: the full URL, its headers and its JSON body. */
export interface ProcessorCall {
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * The HTTP client of the card processors (docs/api.md 6.1): ISSUER_TIMEOUT_MS is one deadline for
 * the connection, TLS, the request and the whole answer; connections are kept alive between calls
 * (one pool per origin); a redirect is an answer like any other, never followed (undici's request
 * never follows one). Only a 2xx's body is read, up to MAX_ANSWER_BYTES; every other body is
 * dropped unread, and no body is ever logged.
 */
@Injectable()
export class ProcessorClient implements OnApplicationShutdown {
  private readonly timeoutMs: number;
  private readonly production: boolean;
  private readonly agent: Agent;

  constructor(config: AppConfig) {
    this.timeoutMs = config.issuerTimeoutMs;
    this.production = config.production;
    this.agent = new Agent({ connect: { timeout: this.timeoutMs } });
  }

  async post({ url, headers, body }: ProcessorCall): Promise<ProcessorAnswer> {
    // An http base URL was refused at creation in production; one stored by a CLI run outside it is
    // not called either (docs/api.md 6.1: never with NODE_ENV=production).
    if (this.production && url.protocol !== 'https:') return { kind: 'unreachable' };
    // One deadline for the whole call, withdrawn once it is over: an abort after the answer would
    // be an error nobody listens for.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    try {
      const answer = await this.agent.request({
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers,
        body,
        signal: deadline.signal,
      });
      if (answer.statusCode < 200 || answer.statusCode >= 300) {
        // Dropped unread (but for keeping the connection alive): a failure's body is never passed on nor logged.
        await answer.body.dump({ limit: MAX_ANSWER_BYTES });
        return { kind: 'answered', status: answer.statusCode, body: undefined };
      }
      return { kind: 'answered', status: answer.statusCode, body: jsonOf(await readUpTo(answer.body, MAX_ANSWER_BYTES)) };
    } catch {
      return deadline.signal.aborted ? { kind: 'timeout' } : { kind: 'unreachable' };
    } finally {
      clearTimeout(timer);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent.destroy();
  }
}

function jsonOf(bytes: Buffer | undefined): unknown {
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}
