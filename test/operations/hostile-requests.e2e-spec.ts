import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '../support/ports';
import { startServer, waitForHealthy } from '../support/processes';

/*
 * The built server (`node dist/main.js`) under requests no client should send: listeners outside
 * Express (CONNECT, the parser's client errors) must never throw, since an exception there ends the
 * process (issue 31: `CONNECT /api/webhook/%ZZ` did). Whatever arrives, the process keeps serving,
 * answers no 5xx and logs no error.
 */

const RUNS = 300;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE'];

interface Answer {
  status: number | null;
}

/** Writes the bytes, half-closes, and reads the status line of whatever comes back before the close. */
function exchange(port: number, bytes: Buffer, waitMs = 5000): Promise<Answer> {
  return new Promise((resolve) => {
    const received: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    const finish = () => {
      clearTimeout(deadline);
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3}) /.exec(Buffer.concat(received).toString('latin1'));
      resolve({ status: status ? Number(status[1]) : null });
    };
    const deadline = setTimeout(finish, waitMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('error', () => undefined); // a reset: 'close' follows
    socket.on('close', finish);
  });
}

/** One path segment no client should send: escapes that do not decode, raw bytes, controls, nothing. */
const hostileSegment = fc.oneof(
  fc.constantFrom('%ZZ', '%', '%E0%A4', '%C0%AF', '%00', '..', '', '%2F', '%25ZZ'),
  fc.uint8Array({ maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.string({ maxLength: 12 }),
);

const hostileRequest = (paths: string[]) =>
  fc
    .record({
      method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ minLength: 1, maxLength: 8 })),
      template: fc.constantFrom(...paths),
      segments: fc.array(hostileSegment, { minLength: 4, maxLength: 4 }),
      query: fc.option(fc.string({ maxLength: 16 }), { nil: undefined }),
      contentType: fc.option(
        fc.constantFrom(
          'application/json',
          'application/json; charset=utf-7',
          'text/plain',
          'application/json; charset="UTF-16"',
          '\u00ff',
        ),
        { nil: undefined },
      ),
      // Often none: a body without a JSON type is answered 415 before the router is reached.
      body: fc.option(fc.uint8Array({ minLength: 1, maxLength: 64 }), { nil: new Uint8Array() }),
    })
    .map(({ method, template, segments, query, contentType, body }) => {
      let index = 0;
      const path = template.replace(/\{[^}]+\}/g, () => segments[index++ % segments.length]!) + (query === undefined ? '' : `?${query}`);
      const head =
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        (contentType === undefined ? '' : `Content-Type: ${contentType}\r\n`) +
        `Content-Length: ${body.length}\r\n\r\n`;
      return Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(body)]);
    });

describe('the built server under hostile requests', () => {
  let cwd: string;
  let port: number;
  let server: ReturnType<typeof startServer>;

  beforeAll(async () => {
    cwd = mkdtempSync(join(tmpdir(), 'platform-api-hostile-'));
    [port] = await freePorts(1);
    server = startServer(
      {
        HOST: '127.0.0.1',
        PORT: String(port),
        DATABASE_URL: `sqlite:${join(cwd, 'db.sqlite')}`,
        SECRET_KEY: randomBytes(32).toString('base64'),
        // Only errors are written: the test reads that none was.
        LOG_LEVEL: 'error',
      },
      cwd,
    );
    await waitForHealthy(`http://127.0.0.1:${port}/health`, 30_000);
  });
  afterAll(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await server.exited;
    rmSync(cwd, { recursive: true, force: true });
  });

  const alive = () => expect({ exitCode: server.child.exitCode, errors: server.output.join('') }).toEqual({ exitCode: null, errors: '' });

  it('answers CONNECT to a path whose parameter does not decode 405 with its methods, and keeps running', async () => {
    const answer = await exchange(port, Buffer.from('CONNECT /api/webhook/%ZZ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    expect(answer.status).toBe(405);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    alive();
  });

  it('answers PUT to a path whose parameter does not decode 405 without credentials, logging no error', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/api/webhook/%ZZ`, { method: 'PUT' });
    expect({ status: response.status, body: await response.json() }).toEqual({ status: 405, body: { code: 'method not allowed' } });
    alive();
  });

  it('never exits, answers a 5xx or logs an error, whatever the method, path and bytes of a request', async () => {
    const document = (await (await fetch(`http://127.0.0.1:${port}/docs/openapi.json`)).json()) as { paths: Record<string, unknown> };
    const paths = [...Object.keys(document.paths), '/docs', '/health', '/'];
    await fc.assert(
      fc.asyncProperty(hostileRequest(paths), async (bytes) => {
        const { status } = await exchange(port, bytes);
        expect(status === null || status < 500, `status ${status} for ${JSON.stringify(bytes.toString('latin1'))}`).toBe(true);
        alive();
      }),
      { numRuns: RUNS },
    );
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
  }, 120_000);
});
