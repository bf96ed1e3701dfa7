import { readFileSync } from 'node:fs';
import { createSecureContext, SecureContext, type TLSSocket } from 'node:tls';
import { Injectable, OnApplicationShutdown } from '@nestjs/common';
import type { IncomingHttpHeaders } from 'node:http';
import { Agent, buildConnector, Dispatcher, Pool, ProxyAgent } from 'undici';
import { readUpTo } from '../../common/read-up-to';
import { AppConfig } from '../../config/app-config';
import type { DeliveryConfig } from '../../config/delivery-config';
import { AddressPolicy } from '../../url-safety/public-address';
import { UrlResolution } from '../../url-safety/url-resolution';
import { checkUrl, portOf } from '../../url-safety/url-rules';
import { privateKeyProblem } from '../../webhooks/client-certificate';
import { ConnectionPools } from './connection-pools';
import { FULL_HANDSHAKE_MS, HandshakeBudget, signingCostMs } from './handshake-budget';

/** Connection pools kept (per vetted address, port, host name and client certificate): ConnectionPools says which gives way past this. */
const MAX_CONNECTION_POOLS = 256;

const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|ERR_OSSL)/;

/**
 * The key exchanges an attempt's TLS offers: elliptic curves only (docs/api.md 10.4). Node's
 * defaults also offer finite-field Diffie-Hellman (TLS 1.2's DHE suites, TLS 1.3's ffdhe groups),
 * whose group the receiver picks: with an 8 192-bit one, each handshake cost the event loop about
 * 200 ms. These are what every current receiver's TLS stack takes.
 */
const CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');
const GROUPS = 'X25519:P-256:P-384';

/** How a request got no answer: refused before any connection (docs/api.md 10.4), or unanswered. */
export type RequestFailure = 'blocked address' | 'dns unavailable' | 'does not resolve' | 'timeout' | 'connection failed' | 'tls error';

/**
 * A client certificate to present in TLS (docs/api.md 10.16), and the identity of the webhook
 * and settings it belongs to: connections that presented it are kept under that identity only.
 */
export interface ClientCertificate {
  readonly identity: string;
  /** PEM: the certificate, then any intermediates. */
  readonly certificate: string;
  readonly privateKey: string;
}

/** A POST to a URL that obeys docs/api.md 5.1, under a deadline, its answer read at most `readAtMost` bytes far. */
export interface PinnedRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** Written as it is: a held body is not copied per request. */
  readonly body: Buffer | string;
  /** The deadline of the attempt the request belongs to (DELIVERY_TIMEOUT_MS). */
  readonly signal: AbortSignal;
  readonly readAtMost: number;
  /** The organization whose webhook the request serves: no organization holds more than its share of the kept connections. */
  readonly organizationId: number;
  readonly client?: ClientCertificate;
}

/** An answer, its body (undefined: longer than the request would read), or why there was none. */
export type PinnedAnswer =
  | { readonly kind: 'answered'; readonly status: number; readonly headers: IncomingHttpHeaders; readonly body: Buffer | undefined }
  | { readonly kind: RequestFailure };

/**
 * The one way delivery reaches a URL (docs/api.md 10.4): the URL passes the static rules again,
 * its host is resolved through the configured resolver and every address must be allowed
 * (public, or TRUSTED_CIDRS), and the connection goes to a vetted address, which nothing
 * resolves again: the request is made to `https://<address>:<port>` with the host name as TLS
 * server name (verified against the certificate) and `Host` header. With DELIVERY_PROXY_URL the
 * connection is an HTTP CONNECT tunnel to `<address>:<port>`. Redirects are not followed
 * (undici's request never does): a 3xx is an answer like any other. A kept-alive connection (and
 * a TLS session, which undici keeps per pool) is reused only for the same address, port, host
 * name and client certificate: each has its own pool, so a connection that presented one
 * webhook's certificate, or none, never carries another webhook's request, nor one made after
 * that webhook's auth changed (the identity names both).
 */
@Injectable()
export class PinnedHttp implements OnApplicationShutdown {
  private readonly config: DeliveryConfig;
  /** DELIVERY_CA_FILE's CAs, trusted beside the system's (undefined: the system's only). */
  private readonly extraCa: string | undefined;
  /** The context of connections without a client certificate. */
  private readonly secureContext: SecureContext;
  private readonly pools = new ConnectionPools<Dispatcher>(MAX_CONNECTION_POOLS);

  constructor(
    private readonly resolution: UrlResolution,
    private readonly addresses: AddressPolicy,
    config: AppConfig,
  ) {
    this.config = config.delivery;
    this.extraCa = this.config.caFile === undefined ? undefined : readFileSync(this.config.caFile, 'utf8');
    this.secureContext = this.contextWith({});
  }

  async post({ url: target, headers, body, signal, readAtMost, organizationId, client }: PinnedRequest): Promise<PinnedAnswer> {
    const check = checkUrl(target, this.addresses.allows);
    if (!check.ok) return { kind: 'blocked address' };
    const url = new URL(check.href);
    let address = url.hostname.replace(/^\[|\]$/g, '');
    if (check.hostname !== undefined) {
      const vetted = await this.resolution.vet(check.hostname, portOf(check.href));
      if (vetted.kind !== 'ok') return { kind: vetted.kind };
      address = vetted.addresses[0];
    }
    const port = Number(url.port || 443);
    const origin = `https://${address.includes(':') ? `[${address}]` : address}:${port}`;
    try {
      // A context that cannot be made (a stored key that no longer matches) fails as the handshake would.
      const pool = this.poolFor(organizationId, address, port, check.hostname, client);
      if (pool === undefined) return { kind: 'tls error' };
      const answer = await pool.request({
        origin,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...headers, host: url.host },
        body,
        signal,
      });
      const read = await readUpTo(answer.body, readAtMost);
      return { kind: 'answered', status: answer.statusCode, headers: answer.headers, body: read };
    } catch (error) {
      return { kind: failureOf(error) };
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.pools.clear().map((pool) => pool.destroy()));
  }

  /**
   * A TLS context of CIPHERS and GROUPS, trusting the system's CAs and DELIVERY_CA_FILE's. Node
   * keeps the system's parsed once for every context; given as `ca`, all ~150 would be parsed
   * again for each (23 ms a client certificate's pool), so only the file's are added, to the
   * context's own store.
   */
  private contextWith(options: { cert?: string; key?: string }): SecureContext {
    const context = createSecureContext({ ...options, ciphers: CIPHERS, ecdhCurve: GROUPS });
    if (this.extraCa !== undefined) (context as SecureContext & { context: NativeContext }).context.addCACert(this.extraCa);
    return context;
  }

  /**
   * The pool of connections for the address, port, host name and client certificate; undefined
   * when the certificate's key is outside docs/api.md 10.16's bounds (one stored before they were
   * set: its every handshake would cost the event loop far more than any other's).
   */
  private poolFor(
    organizationId: number,
    address: string,
    port: number,
    hostname: string | undefined,
    client: ClientCertificate | undefined,
  ): Dispatcher | undefined {
    const key = `${address}|${port}|${hostname ?? ''}|${client?.identity ?? ''}`;
    let pool = this.pools.use(key);
    if (pool === undefined) {
      if (client !== undefined && privateKeyProblem(client.privateKey, undefined) !== undefined) return undefined;
      // A given context wins over cert and key: a client certificate's pool has a context of its own.
      const secureContext =
        client === undefined ? this.secureContext : this.contextWith({ cert: client.certificate, key: client.privateKey });
      const tls = { servername: hostname, secureContext, timeout: this.config.timeoutMs };
      // Each pool is one receiver as its connections see it: its handshakes draw on a budget of their own.
      const handshakes = { budget: new HandshakeBudget(), fullMs: FULL_HANDSHAKE_MS + (client ? signingCostMs(client.privateKey) : 0) };
      pool =
        this.config.proxyUrl === undefined
          ? new Agent({ connect: guarded(buildConnector(tls), handshakes) })
          : new ProxyAgent({
              uri: this.config.proxyUrl.href,
              requestTls: tls,
              proxyTls: { timeout: this.config.timeoutMs },
              // Its connections are made by the tunnel's connect, which it hands to the pool it makes.
              factory: (origin, options) =>
                new Pool(origin, {
                  ...options,
                  connect: guarded((options as Pool.Options).connect as buildConnector.connector, handshakes),
                }),
            });
      void this.pools
        .add(key, organizationId, pool)
        ?.close()
        .catch(() => undefined);
    }
    return pool;
  }
}

/** The native half of a SecureContext, as Node's own `tls` uses it to add the `ca` option's certificates. */
interface NativeContext {
  addCACert(pem: string): void;
}

/**
 * A connector that makes a new connection only within its receiver's handshake budget (docs/api.md
 * 10.10: past it, the connection waits), charges the budget for each full handshake (a resumed
 * session costs next to nothing), and whose TLS sockets end on their own error. A TLS 1.3 server
 * refuses a client certificate (or its absence: docs/api.md 10.16) with an alert after the
 * handshake, which the socket reports as an error before its end; undici, finding the socket still
 * open at the end, would fail the request with "other side closed" instead, and the attempt would
 * read as a failed connection rather than the `tls error` it is.
 */
function guarded(
  connect: buildConnector.connector,
  handshakes: { readonly budget: HandshakeBudget; readonly fullMs: number },
): buildConnector.connector {
  return (options, callback) => {
    const made = () =>
      connect(options, (...answer) => {
        const [, socket] = answer;
        if (socket && !(socket as TLSSocket).isSessionReused()) handshakes.budget.charge(handshakes.fullMs);
        // Before undici's own listeners: the socket is closed by the time they look at its end.
        socket?.on('error', () => socket.destroy());
        callback(...answer);
      });
    const wait = handshakes.budget.waitMs();
    if (wait === 0) made();
    else setTimeout(made, wait).unref();
  };
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
