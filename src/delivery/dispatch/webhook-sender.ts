import { readFileSync } from 'node:fs';
import { createSecureContext, rootCertificates, SecureContext } from 'node:tls';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Agent, Dispatcher, ProxyAgent } from 'undici';
import { AppConfig } from '../../config/app-config';
import type { DeliveryConfig } from '../../config/delivery-config';
import { AddressPolicy } from '../../url-safety/public-address';
import { UrlResolution } from '../../url-safety/url-resolution';
import { checkUrl, portOf } from '../../url-safety/url-rules';
import type { AttemptOutcome } from './attempt-outcome';

/** The receiver's answer body is read at most this far, then dropped (docs/api.md 10.5). */
export const MAX_ANSWER_BYTES = 1024;
/** Connections kept (per vetted address, port and host name); the oldest is closed past this. */
const MAX_CONNECTION_POOLS = 256;

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL)/;

/**
 * One attempt's HTTP request (docs/api.md 10.4): the target passes the static URL rules again,
 * its host is resolved through the configured resolver and every address must be public, and
 * the connection goes to a vetted address, which nothing resolves again: the request is made to
 * `https://<address>:<port>` with the host name as TLS server name (verified against the
 * certificate) and `Host` header. With DELIVERY_PROXY_URL the connection is an HTTP CONNECT
 * tunnel to `<address>:<port>`. Redirects are not followed (undici's request never does). A
 * kept-alive connection is reused only for the same address, port and host name: each such
 * triple has its own connection pool.
 */
@Injectable()
export class WebhookSender implements OnApplicationShutdown {
  private readonly config: DeliveryConfig;
  /** The system's CAs and DELIVERY_CA_FILE's, parsed once: a context per connection would parse ~150 certificates each time. */
  private readonly secureContext: SecureContext | undefined;
  private readonly pools = new Map<string, Dispatcher>();

  constructor(
    private readonly resolution: UrlResolution,
    private readonly addresses: AddressPolicy,
    config: AppConfig,
  ) {
    this.config = config.delivery;
    this.secureContext =
      this.config.caFile === undefined
        ? undefined
        : createSecureContext({ ca: [...rootCertificates, readFileSync(this.config.caFile, 'utf8')] });
  }

  /** `body` is the held one: undici writes it as it is, no copy per attempt. */
  async send(target: string, headers: Record<string, string>, body: Buffer): Promise<AttemptOutcome> {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    const failed = (kind: Exclude<AttemptOutcome['kind'], 'answered' | 'not made'>): AttemptOutcome => ({ kind, durationMs: took() });

    const check = checkUrl(target, this.addresses.allows);
    if (!check.ok) return failed('blocked address');
    const url = new URL(check.href);
    let address = url.hostname.replace(/^\[|\]$/g, '');
    if (check.hostname !== undefined) {
      const vetted = await this.resolution.vet(check.hostname, portOf(check.href));
      if (vetted.kind !== 'ok') return failed(vetted.kind);
      address = vetted.addresses[0];
    }
    const port = Number(url.port || 443);
    const origin = `https://${address.includes(':') ? `[${address}]` : address}:${port}`;
    try {
      const answer = await this.poolFor(address, port, check.hostname).request({
        origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, host: url.host },
        body,
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      await drain(answer.body);
      const retryAfterSeconds = retryAfterOf(answer.headers['retry-after']);
      return {
        kind: 'answered',
        status: answer.statusCode,
        durationMs: took(),
        ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
      };
    } catch (error) {
      return failed(failureOf(error));
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.destroy()));
    this.pools.clear();
  }

  private poolFor(address: string, port: number, hostname: string | undefined): Dispatcher {
    const key = `${address}|${port}|${hostname ?? ''}`;
    let pool = this.pools.get(key);
    if (pool === undefined) {
      const tls = { servername: hostname, secureContext: this.secureContext, timeout: this.config.timeoutMs };
      pool =
        this.config.proxyUrl === undefined
          ? new Agent({ connect: tls })
          : new ProxyAgent({ uri: this.config.proxyUrl.href, requestTls: tls, proxyTls: { timeout: this.config.timeoutMs } });
      this.pools.set(key, pool);
      if (this.pools.size > MAX_CONNECTION_POOLS) {
        const [oldest, evicted] = this.pools.entries().next().value as [string, Dispatcher];
        this.pools.delete(oldest);
        void evicted.close().catch(() => undefined);
      }
    }
    return pool;
  }
}

/** Reads at most MAX_ANSWER_BYTES of the answer and drops the rest with the connection. */
async function drain(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<void> {
  let read = 0;
  for await (const chunk of body) {
    read += chunk.length;
    if (read >= MAX_ANSWER_BYTES) {
      body.destroy();
      return;
    }
  }
}

function retryAfterOf(header: string | string[] | undefined): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value !== undefined && /^\d{1,10}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/** How a request that got no answer failed: its own error, or the one it wraps. */
function failureOf(error: unknown): 'timeout' | 'tls error' | 'connection failed' {
  const { name, code, cause } = (error ?? {}) as { name?: string; code?: string; cause?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError' || (code !== undefined && /TIMEOUT/.test(code))) return 'timeout';
  if (code !== undefined && TLS_ERROR.test(code)) return 'tls error';
  if (cause !== undefined && cause !== error) {
    const inner = failureOf(cause);
    if (inner !== 'connection failed') return inner;
  }
  return 'connection failed';
}
