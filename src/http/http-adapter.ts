import { createServer, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import type { ErrorCode } from './api-error';

/** Request headers beyond this answer 431. */
export const MAX_HEADER_BYTES = 16 * 1024;
const HEADERS_TIMEOUT_MS = 10_000;
/** Longer than the idle timeout of common load balancers (60 s), so they close first. */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

/**
 * Express on an HTTP server with explicit limits: header size, time to receive the headers
 * and the whole request (REQUEST_TIMEOUT_MS). What Node's parser refuses before Express sees
 * it (oversized headers, timeouts, malformed HTTP) still gets the `{code}` body of SPEC 7.
 */
export class LimitedExpressAdapter extends ExpressAdapter {
  constructor(private readonly requestTimeoutMs: number) {
    super();
  }

  override initHttpServer(_options: NestApplicationOptions): void {
    const server = createServer(
      {
        maxHeaderSize: MAX_HEADER_BYTES,
        requestTimeout: this.requestTimeoutMs,
        headersTimeout: Math.min(HEADERS_TIMEOUT_MS, this.requestTimeoutMs),
        keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
        connectionsCheckingInterval: 1000,
      },
      this.getInstance(),
    );
    server.on('clientError', answerClientError);
    this.setHttpServer(server);
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
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}
