import type { TLSSocket } from 'node:tls';
import { CatalogueValidator } from './catalogue-validator';
import { startHttpsTestServer } from './https-test-server';

export { TEST_CA_FILE } from './https-test-server';

/** One request as the receiver got it: the raw body bytes and the headers. */
export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly at: number;
  /** The common name of the client certificate the connection presented (a receiver that asks for one). */
  readonly clientCertificate?: string;
}

/** How the receiver answers a path: a status (and headers), or by hanging or resetting the connection. */
export type Behaviour = { status: number; headers?: Record<string, string>; body?: string; delayMs?: number } | 'hang' | 'reset';

export interface WebhookReceiver {
  readonly port: number;
  readonly received: ReceivedRequest[];
  /** Requests to `path` answer this way from now on (default: 200). */
  on(path: string, behaviour: Behaviour): void;
  /** The most requests to `path` that were waiting for their answer at once. */
  peakInFlight(path: string): number;
  /** Waits until `count` requests to `path` have arrived (or throws after `timeoutMs`). */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  /** The event types of the requests received so far, each one checked against the event catalogue. */
  eventTypes(): ReadonlySet<string>;
  /** Stops; throws when any request received was not as the event catalogue describes it. */
  close(): Promise<void>;
}

/** One catalogue for every receiver: compiling it is the costly part. */
let catalogue: CatalogueValidator | undefined;

/**
 * An HTTPS receiver on loopback with a certificate of its own, recording every request, and
 * checking each against the event catalogue (docs/api.md 10.11: every body the service sends
 * validates against its entry's schema), so that every suite that delivers holds the service
 * to it; what did not validate fails the suite when the receiver closes. With `clientCa` it
 * accepts only connections that present a client certificate that CA signed (docs/api.md 10.16).
 */
export async function startWebhookReceiver({ clientCa }: { clientCa?: string } = {}): Promise<WebhookReceiver> {
  catalogue ??= new CatalogueValidator();
  const validator = catalogue;
  const eventTypes = new Set<string>();
  const offCatalogue: string[] = [];
  const behaviours = new Map<string, Behaviour>();
  const received: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();
  const inFlight = new Map<string, number>();
  const peaks = new Map<string, number>();
  const server = await startHttpsTestServer(
    ({ path, headers, body }, req, res) => {
      const client = clientCa === undefined ? undefined : (req.socket as TLSSocket).getPeerCertificate().subject?.CN;
      const request = {
        method: req.method ?? '',
        path,
        headers,
        body: body.toString('utf8'),
        at: Date.now(),
        ...(client !== undefined && { clientCertificate: String(client) }),
      };
      received.push(request);
      const { type, problems } = validator.check(request);
      if (type !== undefined) eventTypes.add(type);
      offCatalogue.push(...problems.map((problem) => `${path}: ${problem}`));
      for (const waiter of waiters) waiter();
      inFlight.set(path, (inFlight.get(path) ?? 0) + 1);
      peaks.set(path, Math.max(peaks.get(path) ?? 0, inFlight.get(path)!));
      res.on('close', () => inFlight.set(path, inFlight.get(path)! - 1));
      const behaviour = behaviours.get(path) ?? { status: 200 };
      if (behaviour === 'hang') return;
      if (behaviour === 'reset') return req.socket.destroy();
      setTimeout(() => res.writeHead(behaviour.status, behaviour.headers).end(behaviour.body ?? ''), behaviour.delayMs ?? 0);
    },
    clientCa === undefined ? {} : { requestCert: true, rejectUnauthorized: true, ca: clientCa },
  );
  return {
    port: server.port,
    received,
    on: (path, behaviour) => behaviours.set(path, behaviour),
    peakInFlight: (path) => peaks.get(path) ?? 0,
    waitFor: (path, count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const matching = () => received.filter((request) => request.path === path);
        const check = () => {
          if (matching().length < count) return;
          cleanup();
          resolve(matching());
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`${matching().length} of ${count} requests to ${path} after ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    eventTypes: () => eventTypes,
    close: async () => {
      await server.close();
      if (offCatalogue.length > 0)
        throw new Error(`requests not as the event catalogue describes them (docs/api.md 10.11):\n${offCatalogue.join('\n')}`);
    },
  };
}
