import { once } from 'node:events';
import { AddressInfo, connect, createServer, Server, Socket } from 'node:net';

/**
 * How `cut()` takes the database away from the clients of the proxy. In every mode the open
 * connections are destroyed, on both sides: the client sees its connection end (FIN) with any
 * bytes not yet relayed lost, and the database sees its client go away (MariaDB then rolls back
 * whatever transaction that connection had open). What differs is what a NEW connection meets:
 * - `refuse`: nothing listens on the port any more; the kernel refuses the connection
 *   (ECONNREFUSED), as when the database server is down on a live host.
 * - `reset`: the connection is accepted and destroyed at once, before any byte (the client
 *   sees it closed before the server's greeting), as behind a load balancer with no backend.
 * - `silent`: the connection is accepted and then left open with nothing ever sent or relayed
 *   (whatever the client sends is discarded), as when packets to the database are dropped:
 *   only the client's own connect timeout ends the wait.
 */
export type CutMode = 'refuse' | 'reset' | 'silent';

export interface ProxyTarget {
  readonly host: string;
  readonly port: number;
}

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
}

interface Trigger {
  readonly pattern: RegExp;
  readonly mode: CutMode;
  readonly forwardFirst: boolean;
  readonly fire: () => void;
}

/**
 * A TCP proxy of the test's own between the service and MariaDB (default 127.0.0.1:3306),
 * so a test can cut the database off and bring it back while the service keeps running.
 *
 * Exact semantics:
 * - `start()` listens on 127.0.0.1 on an ephemeral port; `port` stays the same for the
 *   proxy's whole life (a `restore()` after a `refuse` cut listens on it again). Each accepted
 *   connection opens one upstream connection to the target and relays bytes both ways, in
 *   order; when either side ends or fails, both are destroyed.
 * - `cut(mode)` (default `refuse`, see CutMode): from the moment it is called no new
 *   connection reaches the target and every open one is destroyed on both sides. It resolves
 *   once the listener is closed (`refuse`) and every socket is destroyed. Cutting a proxy that
 *   is already cut only switches the mode for new connections.
 * - `restore()`: new connections are relayed again (connections held by `silent` are
 *   destroyed: they never got a greeting). Connections destroyed by the cut stay gone; the
 *   client must reconnect. Restoring a proxy that is not cut does nothing.
 * - `latencyMs` (default 0, settable at any time): each chunk is held this long before it is
 *   relayed, in both directions, without reordering (a held chunk pauses its side), so every
 *   round trip to the database takes at least twice as long.
 * - `cutWhenClientSends(pattern, { mode, forwardFirst })`: arms a one-shot trigger on the
 *   client → database direction; the first chunk whose latin1 text matches `pattern` cuts the
 *   proxy, either before that chunk is relayed (it never reaches the database) or, with
 *   `forwardFirst`, right after it has been handed to the upstream socket (the database
 *   receives it and sees the connection end only after it). Resolves when the cut happened.
 *   `disarm()` forgets a trigger that has not fired.
 *   The MySQL text protocol carries each statement as plain text after the packet header and
 *   the command byte (0x03), so /INSERT INTO webhooks/ selects a statement, and /[^\w ]COMMIT$/
 *   the COMMIT itself (a bare /COMMIT/ would also match `SET ... READ COMMITTED`).
 * - `freeze()`: as if the database were stopped (SIGSTOP): every connection stays open and
 *   nothing is relayed either way, nor on a connection accepted meanwhile (the client hears no
 *   greeting), until `thaw()` relays what waited, in order.
 * - `close()`: destroys everything and stops listening for good.
 */
export class TcpProxy {
  /** Milliseconds each chunk waits before it is relayed (both directions). */
  latencyMs = 0;
  private readonly links = new Set<Link>();
  private readonly held = new Set<Socket>();
  private cutMode: CutMode | undefined;
  private frozen = false;
  private listening = true;
  private trigger: Trigger | undefined;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly target: ProxyTarget,
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  static async start(target: ProxyTarget = { host: '127.0.0.1', port: 3306 }): Promise<TcpProxy> {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return new TcpProxy(server, (server.address() as AddressInfo).port, target);
  }

  get isCut(): boolean {
    return this.cutMode !== undefined;
  }

  /** Connections currently relayed (not counting those a `silent` cut holds). */
  get openConnections(): number {
    return this.links.size;
  }

  async cut(mode: CutMode = 'refuse'): Promise<void> {
    this.cutMode = mode;
    for (const { client, upstream } of this.links) {
      client.destroy();
      upstream.destroy();
    }
    this.links.clear();
    if (mode !== 'refuse') {
      await this.listen();
      return;
    }
    for (const socket of this.held) socket.destroy();
    this.held.clear();
    if (this.listening) {
      this.listening = false;
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
  }

  async restore(): Promise<void> {
    if (this.cutMode === undefined) return;
    this.cutMode = undefined;
    for (const socket of this.held) socket.destroy();
    this.held.clear();
    await this.listen();
  }

  freeze(): void {
    this.frozen = true;
    for (const { client, upstream } of this.links) {
      client.pause();
      upstream.pause();
    }
  }

  thaw(): void {
    this.frozen = false;
    for (const { client, upstream } of this.links) {
      client.resume();
      upstream.resume();
    }
  }

  cutWhenClientSends(pattern: RegExp, options: { mode?: CutMode; forwardFirst?: boolean } = {}): Promise<void> {
    return new Promise((resolve) => {
      this.trigger = { pattern, mode: options.mode ?? 'refuse', forwardFirst: options.forwardFirst ?? false, fire: resolve };
    });
  }

  /** Forgets an armed `cutWhenClientSends` trigger that has not fired (its promise never settles). */
  disarm(): void {
    this.trigger = undefined;
  }

  async close(): Promise<void> {
    this.disarm();
    await this.cut('refuse');
  }

  private async listen(): Promise<void> {
    if (this.listening) return;
    this.listening = true;
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
  }

  private accept(client: Socket): void {
    client.on('error', () => undefined);
    if (this.cutMode === 'reset') {
      client.destroy();
      return;
    }
    if (this.cutMode === 'silent') {
      this.held.add(client);
      client.on('close', () => this.held.delete(client));
      client.resume(); // read and discard
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    upstream.on('error', () => undefined);
    const link: Link = { client, upstream };
    this.links.add(link);
    const drop = () => {
      this.links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of [client, upstream]) {
      socket.on('close', drop);
      socket.on('end', drop);
    }
    this.relay(client, upstream, true);
    this.relay(upstream, client, false);
    if (this.frozen) {
      client.pause();
      upstream.pause();
    }
  }

  /** Copies `from` to `to`, chunk by chunk, honouring latency, triggers and back-pressure. */
  private relay(from: Socket, to: Socket, towardsDatabase: boolean): void {
    from.on('data', (chunk: Buffer) => {
      const forward = () => {
        if (to.destroyed || from.destroyed) return;
        const trigger = towardsDatabase ? this.trigger : undefined;
        if (trigger && trigger.pattern.test(chunk.toString('latin1'))) {
          this.trigger = undefined;
          const fire = () => void this.cut(trigger.mode).then(trigger.fire);
          if (trigger.forwardFirst) to.write(chunk, fire);
          else fire();
          return;
        }
        if (!to.write(chunk)) {
          from.pause();
          to.once('drain', () => from.resume());
        }
      };
      if (this.latencyMs <= 0) {
        forward();
        return;
      }
      from.pause();
      setTimeout(() => {
        forward();
        if (!from.destroyed && to.writableLength === 0) from.resume();
        else to.once('drain', () => from.resume());
      }, this.latencyMs);
    });
  }
}
