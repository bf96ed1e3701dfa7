import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppConfig } from '../../config/app-config';
import { ProcessorClient } from './processor-client';

// The processor client's shell (docs/api.md 6.1) against a local server: one deadline, redirects not followed, bodies read only for a 2xx.

describe('ProcessorClient', () => {
  let server: Server;
  let base: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      if (req.url === '/slow-body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"a":');
        return;
      }
      if (req.url === '/redirect') return void res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/not-json') return void res.writeHead(200).end('<html>');
      if (req.url === '/failure') return void res.writeHead(500).end('{"secret":"of the processor"}');
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"payload":"x"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  const clientOf = (production = false) => new ProcessorClient({ issuerTimeoutMs: 300, production } as AppConfig);
  const post = (client: ProcessorClient, path: string) => client.post({ url: new URL(`${base}${path}`), headers: {}, body: '{}' });

  it("reads a 2xx's JSON body", async () => {
    expect(await post(clientOf(), '/ok')).toEqual({ kind: 'answered', status: 201, body: { payload: 'x' } });
  });

  it('reads no other body, and follows no redirect', async () => {
    expect(await post(clientOf(), '/failure')).toEqual({ kind: 'answered', status: 500, body: undefined });
    expect(await post(clientOf(), '/redirect')).toEqual({ kind: 'answered', status: 302, body: undefined });
    expect(seen.filter((url) => url === '/ok')).toHaveLength(1);
  });

  it('gives a 2xx that is not JSON no body', async () => {
    expect(await post(clientOf(), '/not-json')).toEqual({ kind: 'answered', status: 200, body: undefined });
  });

  it('counts the answer within the deadline: a body that never ends is a timeout', async () => {
    const started = Date.now();
    expect(await post(clientOf(), '/slow-body')).toEqual({ kind: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('calls no http URL with NODE_ENV=production', async () => {
    const before = seen.length;
    expect(await post(clientOf(true), '/ok')).toEqual({ kind: 'unreachable' });
    expect(seen).toHaveLength(before);
  });
});
