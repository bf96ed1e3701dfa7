import { createServer, IncomingMessage, ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NestApplicationOptions } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { Request, RequestHandler, Response } from 'express';
import type { ErrorCode } from '../common/domain-error';
import { PreparedMatch, PreparedRoutes, RouteHandler } from './prepared-routes';

/** Request headers beyond this answer 431. */
export const MAX_HEADER_BYTES = 16 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
/** Longer than the idle timeout of common load balancers (60 s), so they close first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/** Every answer of this service is JSON (SPEC 7 for the errors; the operations too). */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

type ErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse, next: () => void) => unknown;
const done = (): void => undefined;

/**
 * Express as the service's platform, with three changes:
 *
 * - The HTTP server has explicit limits: header size, time to receive the headers and the whole
 *   request (REQUEST_TIMEOUT_MS). What Node's parser refuses before Express sees it (oversized
 *   headers, timeouts, malformed HTTP) still gets the `{code}` body of SPEC 7.
 * - Answers are written with Node's own response API (status, headers, a JSON body), not
 *   Express's, so a Nest handler can answer a request Express never saw.
 * - The GET routes of Nest's controllers also go into a table of prepared routes. A plain GET
 *   that matches one (see PreparedRoutes) runs the middleware of `useOnEveryRequest` and then
 *   its Nest handler directly: the same guards, pipes, controller method and exception filter,
 *   without Express's router, which cost more per request than the reads' own work
 *   (docs/performance.md). Any other request goes to Express as usual.
 */
export class ApiExpressAdapter extends ExpressAdapter {
  private readonly prepared = new PreparedRoutes();
  private everyRequest: RequestHandler = (_req, _res, next) => next();
  private errorHandler?: ErrorHandler;

  constructor(private readonly requestTimeoutMs: number) {
    super();
  }

  /**
   * Middleware for every request, prepared routes included (registered with Express too, in
   * the same order). What is added with plain `use` (the body parser, static files) applies
   * only to the requests Express serves.
   */
  useOnEveryRequest(middleware: RequestHandler): void {
    const before = this.everyRequest;
    this.everyRequest = (req, res, next) => before(req, res, (error?: unknown) => (error === undefined ? middleware(req, res, next) : next(error)));
    this.use(middleware);
  }

  // Express's `get(setting)` reads a setting; with a handler it adds a route, in Express's order.
  override get(...args: unknown[]): unknown {
    if (args.length >= 2) {
      const [path, handler] = args;
      const nestHandler = typeof handler === 'function' && Reflect.hasMetadata(PATH_METADATA, handler) ? (handler as RouteHandler) : undefined;
      // A pattern that is not a string may match anything: it keeps every later route on Express.
      this.prepared.add(typeof path === 'string' ? path : '*', nestHandler);
    }
    return super.get(...(args as Parameters<ExpressAdapter['get']>));
  }

  /** Nest's handler of errors outside route handlers (middleware, body parser): kept for prepared routes. */
  override setErrorHandler(handler: ErrorHandler, prefix?: string): unknown {
    this.errorHandler = handler;
    return super.setErrorHandler(handler, prefix);
  }

  override reply(response: ServerResponse, body: unknown, statusCode?: number): void {
    if (statusCode !== undefined) response.statusCode = statusCode;
    const text = typeof body === 'string' ? body : body === undefined || body === null ? '' : JSON.stringify(body);
    if (!response.hasHeader('Content-Type')) response.setHeader('Content-Type', JSON_CONTENT_TYPE);
    response.setHeader('Content-Length', Buffer.byteLength(text));
    response.end(text);
  }

  override status(response: ServerResponse, statusCode: number): ServerResponse {
    response.statusCode = statusCode;
    return response;
  }

  override setHeader(response: ServerResponse, name: string, value: string): ServerResponse {
    return response.setHeader(name, value);
  }

  override getHeader(response: ServerResponse, name: string): ReturnType<ServerResponse['getHeader']> {
    return response.getHeader(name);
  }

  override appendHeader(response: ServerResponse, name: string, value: string): ServerResponse {
    return response.appendHeader(name, value);
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
      (req, res) => {
        const route = this.prepared.match(req);
        if (route === undefined) express(req, res);
        else this.servePrepared(route, req, res);
      },
    );
    server.on('clientError', answerClientError);
    this.setHttpServer(server);
  }

  private servePrepared({ handler, pattern, params }: PreparedMatch, req: IncomingMessage, res: ServerResponse): void {
    // What Express would have put on the request, and what Nest's parameter decorators and the
    // request log read; `route` only once the middleware let the request through to it.
    Object.assign(req, { params, query: {}, originalUrl: req.url });
    const fail = (error: unknown): void => {
      if (this.errorHandler) void Promise.resolve(this.errorHandler(error, req, res, done)).catch(() => res.destroy());
      else res.destroy();
    };
    // The middlewares are typed for Express but use only Node's request and response API.
    this.everyRequest(req as Request, res as Response, (error?: unknown) => {
      if (error !== undefined) return fail(error);
      Object.assign(req, { route: { path: pattern } });
      Promise.resolve(handler(req, res, done)).catch(fail);
    });
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
  const body = JSON.stringify({ code });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${JSON_CONTENT_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
