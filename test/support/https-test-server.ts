import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, ServerOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';

const TLS_DIR = join(__dirname, 'tls');
/** The CA that signed the receiver's certificate (hooks.example.com, *.example.com, 127.0.0.1): DELIVERY_CA_FILE. */
export const TEST_CA_FILE = join(TLS_DIR, 'ca.pem');

/** A request read whole: its path, its headers (each as one string) and its body. */
export interface ReadRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export interface HttpsTestServer {
  readonly port: number;
  /** Stops, dropping the connections still open. */
  close(): Promise<void>;
}

/**
 * An HTTPS server on loopback with the receivers' certificate (*.example.com), which reads each
 * request whole and hands it to `handle`: what the test receivers and the token server share.
 * `tls` adds to its TLS options (a client CA, for one that asks for a certificate).
 */
export async function startHttpsTestServer(
  handle: (request: ReadRequest, req: IncomingMessage, res: ServerResponse) => void,
  tls: ServerOptions = {},
): Promise<HttpsTestServer> {
  const server = createServer({
    key: readFileSync(join(TLS_DIR, 'receiver.key')),
    cert: readFileSync(join(TLS_DIR, 'receiver.pem')),
    ...tls,
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
      handle({ path: req.url ?? '/', headers, body: Buffer.concat(chunks) }, req, res);
    });
  });
  const sockets = new Set<Socket>();
  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
