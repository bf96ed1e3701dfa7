import { createServer, IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NestApplicationOptions } from '@nestjs/common';
import express, { type Express } from 'express';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { ErrorCode } from '../common/domain-error';
import { RouteMethods } from './route-methods';

/** Request headers beyond this answer 431. */
export const MAX_HEADER_BYTES = 16 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
/** Longer than the idle timeout of common load balancers (60 s), so they close first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Express as the service's platform, its routes case-sensitive, with two additions:
 *
 * - The HTTP server has explicit limits: header size, time to receive the headers and the whole
 *   request (REQUEST_TIMEOUT_MS). What Node's parser refuses before Express sees it (oversized
 *   headers, timeouts, malformed HTTP) still gets the `{code}` body of docs/api.md 7.
 * - Every route registered through it is recorded with its method (`allowedMethods`: the
 *   405s of docs/api.md 7), rather than read back from Express's private route table.
 */
export class ApiExpressAdapter extends ExpressAdapter {
  private readonly routeMethods = new RouteMethods();

  constructor(private readonly requestTimeoutMs: number) {
    super(caseSensitive(express()));
  }

  /** The methods the routes accept for this path; empty when no route has it. */
  allowedMethods(path: string): string[] {
    return this.routeMethods.allowed(path);
  }

  // Express's `get(setting)` reads a setting; with a handler it adds a route.
  override get(...args: unknown[]): unknown {
    if (args.length < 2) return super.get(...(args as Parameters<ExpressAdapter['get']>));
    return this.record('get', args, () => super.get(...(args as Parameters<ExpressAdapter['get']>)));
  }

  override post(...args: unknown[]): unknown {
    return this.record('post', args, () => super.post(...(args as Parameters<ExpressAdapter['post']>)));
  }

  override put(...args: unknown[]): unknown {
    return this.record('put', args, () => super.put(...(args as Parameters<ExpressAdapter['put']>)));
  }

  override patch(...args: unknown[]): unknown {
    return this.record('patch', args, () => super.patch(...(args as Parameters<ExpressAdapter['patch']>)));
  }

  override delete(...args: unknown[]): unknown {
    return this.record('delete', args, () => super.delete(...(args as Parameters<ExpressAdapter['delete']>)));
  }

  override head(...args: unknown[]): unknown {
    return this.record('head', args, () => super.head(...(args as Parameters<ExpressAdapter['head']>)));
  }

  override options(...args: unknown[]): unknown {
    return this.record('options', args, () => super.options(...(args as Parameters<ExpressAdapter['options']>)));
  }

  override initHttpServer(_options: NestApplicationOptions): void {
    const express = this.getInstance<(req: IncomingMessage, res: ServerResponse) => void>();
    const server = createServer(
      {
        maxHeaderSize: MAX_HEADER_BYTES,
        requestTimeout: this.requestTimeoutMs,
        headersTimeout: Math.min(HEADERS_TIMEOUT_MS, this.requestTimeoutMs),
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
        connectionsCheckingInterval: 1000,
      },
      express,
    );
    // These listeners run outside Express and Nest's filter, where an exception would end the
    // process: each catches its own and closes the connection.
    server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) =>
      closingOnThrow(socket, () => answerClientError(error, socket)),
    );
    // Node hands CONNECT to this event rather than to Express, and closes the socket when no one listens.
    server.on('connect', (req: IncomingMessage, socket: Duplex) => closingOnThrow(socket, () => this.answerConnect(req, socket)));
    this.setHttpServer(server);
  }

  /** CONNECT, which no route takes: 405 with the path's methods, or 404 for a path no route has (docs/api.md 7). */
  private answerConnect(req: IncomingMessage, socket: Duplex): void {
    // Node's own error listener is off a CONNECT's socket: a reset while answering would be an
    // unhandled 'error' event, which ends the process.
    socket.on('error', () => socket.destroy());
    const path = (req.url ?? '').split('?')[0];
    const allowed = path.startsWith('/') ? this.allowedMethods(path) : [];
    if (allowed.length === 0) answerRaw(socket, 404, 'not found');
    else answerRaw(socket, 405, 'method not allowed', `Allow: ${allowed.join(', ')}\r\n`);
  }

  private record(method: string, [path]: unknown[], register: () => unknown): unknown {
    this.routeMethods.add(method, typeof path === 'string' ? path : '*');
    return register();
  }
}

/**
 * Paths are case-sensitive (RFC 3986): `/API/WEBHOOK` is an unknown route, 404 (docs/api.md 7).
 * Set before Nest's adapter first uses the app: Express's router takes it when it is made.
 */
function caseSensitive(app: Express): Express {
  app.set('case sensitive routing', true);
  return app;
}

/** Runs a raw listener's answer; should it throw, the connection is closed rather than the process ended. */
function closingOnThrow(socket: Duplex, answer: () => void): void {
  try {
    answer();
  } catch {
    socket.destroy();
  }
}

function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code]: [number, ErrorCode] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request timeout']
        : [400, 'bad request'];
  answerRaw(socket, status, code);
}

/** An error answer written on the socket itself, where neither Express nor Nest's filter sees the request; then the connection closes. */
function answerRaw(socket: Duplex, status: number, code: ErrorCode, headers = ''): void {
  const body = JSON.stringify({ code });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n${headers}` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
