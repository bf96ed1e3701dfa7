import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { createServer, Server, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { constants } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLIENT, CLIENT_CA, RSA_8192_KEY, RSA_CLIENT } from '../../../test/support/client-certificates';
import type { AppConfig } from '../../config/app-config';
import { AddressPolicy } from '../../url-safety/public-address';
import type { UrlResolution } from '../../url-safety/url-resolution';
import { HandshakeBudget } from './handshake-budget';
import { PinnedHttp, PinnedRequest } from './pinned-http';

/*
 * The client certificate of docs/api.md 10.16 on a direct connection (the e2e suites go through
 * the CONNECT proxy): a receiver on loopback that asks for one, trusted by TRUSTED_CIDRS.
 */

const TLS_DIR = join(__dirname, '../../../test/support/tls');

/** A receiver on loopback with the test receivers' certificate and `options`, answering with `handler`. */
async function startReceiver(options: ServerOptions, handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(
    { key: readFileSync(join(TLS_DIR, 'receiver.key')), cert: readFileSync(join(TLS_DIR, 'receiver.pem')), ...options },
    handler,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/in` };
}

const closed = (server: Server) => new Promise((resolve) => server.close(resolve));

/** PinnedHttp trusting loopback (TRUSTED_CIDRS) and the test CA, directly (no proxy). */
const pinnedHttp = (timeoutMs: number) =>
  new PinnedHttp({} as UrlResolution, new AddressPolicy([{ cidr: '127.0.0.1/32' }]), {
    delivery: { timeoutMs, caFile: join(TLS_DIR, 'ca.pem'), proxyUrl: undefined },
  } as unknown as AppConfig);

/** A POST of `{}` to `url`: the answer's status and body, or how it failed. */
async function posted(http: PinnedHttp, url: string, client?: PinnedRequest['client']) {
  const answer = await http.post({
    url,
    headers: {},
    body: '{}',
    signal: AbortSignal.timeout(5000),
    readAtMost: 1024,
    organizationId: 1,
    client,
  });
  return answer.kind === 'answered' ? { status: answer.status, body: answer.body?.toString() } : answer.kind;
}

describe('PinnedHttp: client certificates (docs/api.md 10.16)', () => {
  let server: Server;
  let http: PinnedHttp;
  let url: string;
  const connections: unknown[] = [];

  beforeAll(async () => {
    ({ server, url } = await startReceiver({ requestCert: true, rejectUnauthorized: true, ca: CLIENT_CA }, (req, res) =>
      res.end((req.socket as TLSSocket).getPeerCertificate().subject.CN),
    ));
    server.on('secureConnection', (socket: TLSSocket) => connections.push(socket.getPeerCertificate().subject?.CN));
    http = pinnedHttp(2000);
  });
  afterAll(async () => {
    await http.onApplicationShutdown();
    await closed(server);
  });

  const post = async (client?: PinnedRequest['client']) => {
    const answer = await posted(http, url, client);
    return typeof answer === 'string' ? answer : [answer.status, answer.body];
  };

  it('presents the certificate in the handshake', async () => {
    expect(await post({ identity: 'a', ...CLIENT })).toEqual([200, 'webhooks.acme.test']);
  });

  it('fails tls error without one, on a connection of its own though one that presented a certificate is open', async () => {
    expect(await post()).toBe('tls error');
  });

  it('keeps the connections of each identity apart: another identity connects anew, even with the same certificate', async () => {
    connections.length = 0;
    expect(await post({ identity: 'a', ...CLIENT })).toEqual([200, 'webhooks.acme.test']);
    expect(await post({ identity: 'b', ...RSA_CLIENT })).toEqual([200, 'rsa.acme.test']);
    expect(await post({ identity: 'c', ...CLIENT })).toEqual([200, 'webhooks.acme.test']);
    expect(connections).toEqual(['rsa.acme.test', 'webhooks.acme.test']);
  });

  it('fails tls error without connecting for a key stored before its size was refused (docs/api.md 10.16)', async () => {
    connections.length = 0;
    expect(await post({ identity: 'long', certificate: RSA_CLIENT.certificate, privateKey: RSA_8192_KEY })).toBe('tls error');
    expect(connections).toEqual([]);
  });
});

describe('PinnedHttp: key exchange (docs/api.md 10.4)', () => {
  const http = pinnedHttp(2000);
  afterAll(() => http.onApplicationShutdown());

  /** What an attempt to a receiver whose TLS takes only `options`' suites comes to. */
  const postTo = async (options: ServerOptions) => {
    const { server, url } = await startReceiver(options, (_, res) => res.end('ok'));
    try {
      const answer = await posted(http, url);
      return typeof answer === 'string' ? answer : answer.status;
    } finally {
      await closed(server);
    }
  };

  it('refuses finite-field Diffie-Hellman, whose group the receiver picks (8 192 bits: ~200 ms of the event loop a handshake)', async () => {
    expect(
      await postTo({ maxVersion: 'TLSv1.2', ciphers: 'DHE-RSA-AES128-GCM-SHA256', dhparam: readFileSync(join(TLS_DIR, 'dhe-2048.pem')) }),
    ).toBe('tls error');
  });

  it.each(['TLSv1.2', 'TLSv1.3'] as const)('connects over %s with an elliptic-curve key exchange', async (version) => {
    expect(await postTo({ minVersion: version, maxVersion: version })).toBe(200);
  });
});

describe('PinnedHttp: the handshake budget of a receiver (docs/api.md 10.10)', () => {
  let http: PinnedHttp;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    // A receiver that closes every connection and resumes no session: each attempt is a full handshake.
    ({ server, url } = await startReceiver(
      { requestCert: true, ca: CLIENT_CA, secureOptions: constants.SSL_OP_NO_TICKET, sessionTimeout: 0 },
      (_, res) => res.writeHead(200, { connection: 'close' }).end('ok'),
    ));
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    await http?.onApplicationShutdown();
  });
  afterAll(() => closed(server));

  const post = async () => {
    const answer = await posted(http, url, { identity: 'rsa', ...RSA_CLIENT });
    return typeof answer === 'string' ? answer : answer.status;
  };

  it("charges each full handshake to the receiver's budget, its client key's signature included", async () => {
    const charge = vi.spyOn(HandshakeBudget.prototype, 'charge');
    http = pinnedHttp(5000);
    expect([await post(), await post(), await post()]).toEqual([200, 200, 200]);
    expect(charge).toHaveBeenCalledTimes(3);
    for (const [ms] of charge.mock.calls) expect(ms).toBeGreaterThan(1);
  });

  it('makes a new connection wait while the receiver owes its budget, as a slow receiver’s attempt waits', async () => {
    vi.spyOn(HandshakeBudget.prototype, 'waitMs').mockReturnValue(300);
    http = pinnedHttp(5000);
    const started = performance.now();
    expect(await post()).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
  });
});
