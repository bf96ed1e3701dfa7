import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';

export interface ConnectProxy {
  readonly url: string;
  /** Every CONNECT target asked for, in order (`address:port`). */
  readonly requested: string[];
  /** Maps one more `address:port` target to a local port. */
  route(target: string, port: number): void;
  close(): Promise<void>;
}

/**
 * An HTTP CONNECT egress proxy on loopback that maps public `address:port` targets to local
 * ports: deliveries keep every SSRF rule on (the webhook's host resolves to a public address)
 * while no packet leaves the machine. A target it has no mapping for is refused (403).
 */
export async function startConnectProxy(routes: Record<string, number>): Promise<ConnectProxy> {
  const requested: string[] = [];
  const table = new Map(Object.entries(routes));
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = req.url ?? '';
    requested.push(target);
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    const port = table.get(target);
    if (port === undefined) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(port, '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requested,
    route: (target, port) => table.set(target, port),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
