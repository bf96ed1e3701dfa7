import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lithicProvision } from './lithic';
import { marqetaAndroidPay, marqetaApplePay } from './marqeta';
import type { SimulatedAnswer } from './request-rules';

/*
 * The card processor simulator (docs/api.md 6.1): Marqeta's and Lithic's push-provisioning routes
 * on one base URL, for development, the README's tour and the tests, with node:http alone. A body
 * that is not JSON answers 400 whatever the route; an unknown route 404 (a request target that is
 * not a URL, or a card token that does not decode, included); a client that goes away mid-body is
 * let go. No request stops the simulator.
 */

const MAX_BODY_BYTES = 64 * 1024;
const LITHIC_PROVISION = /^\/v1\/cards\/([^/]+)\/provision$/;

type Route = (req: IncomingMessage, body: unknown) => SimulatedAnswer;

function routeOf(method: string | undefined, path: string): Route | undefined {
  if (method !== 'POST') return undefined;
  if (path === '/digitalwalletprovisionrequests/applepay') return (req, body) => marqetaApplePay(req.headers, body);
  if (path === '/digitalwalletprovisionrequests/androidpay') return (req, body) => marqetaAndroidPay(req.headers, body);
  const token = decoded(LITHIC_PROVISION.exec(path)?.[1]);
  return token === undefined ? undefined : (req, body) => lithicProvision(req.headers, body, token);
}

/** The path of a request target (undefined: not a URL, as `http://[`). */
function pathOf(target: string | undefined): string | undefined {
  try {
    return new URL(target ?? '/', 'http://simulator').pathname;
  } catch {
    return undefined;
  }
}

/** A path segment percent-decoded (undefined: none, or one that does not decode, as `%ZZ`). */
function decoded(segment: string | undefined): string | undefined {
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The request's body as JSON; undefined when it is not JSON, or too large to be a provisioning request. */
async function jsonBodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function send(res: ServerResponse, { status, body }: SimulatedAnswer): void {
  if (res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Listens on `port` of 127.0.0.1 (0: a free one) until closed; a delayed answer is dropped when its client goes away or the server closes. */
export async function startProcessorSimulator(port: number): Promise<Server> {
  const delayed = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const path = pathOf(req.url);
    const route = path === undefined ? undefined : routeOf(req.method, path);
    if (route === undefined) {
      req.resume();
      return send(res, { status: 404, body: { message: 'processor simulator: no such route' } });
    }
    // A client that closes mid-body ends the read with an error: its request is let go.
    jsonBodyOf(req).then(
      (body) => {
        if (body === undefined) return send(res, { status: 400, body: { message: 'processor simulator: the body is not JSON' } });
        const answer = route(req, body);
        if (answer.delayMs === undefined) return send(res, answer);
        const timer = setTimeout(() => (delayed.delete(timer), send(res, answer)), answer.delayMs);
        delayed.add(timer);
        res.once('close', () => (clearTimeout(timer), delayed.delete(timer)));
      },
      () => res.destroy(),
    );
  });
  server.once('close', () => delayed.forEach(clearTimeout));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

/** The port a started simulator listens on. */
export const portOf = (server: Server): number => (server.address() as AddressInfo).port;
