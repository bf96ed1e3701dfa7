import type { Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { portOf, startProcessorSimulator } from './simulator';

// The simulator's HTTP shell: its routes on one base URL, and what it answers before any processor's rules.

describe('the processor simulator', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = await startProcessorSimulator(0);
    base = `http://127.0.0.1:${portOf(server)}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const post = async (path: string, body: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  it("serves Marqeta's and Lithic's routes on one base URL", async () => {
    expect((await post('/digitalwalletprovisionrequests/applepay', '{}')).status).toBe(401);
    expect((await post('/digitalwalletprovisionrequests/androidpay', '{}')).status).toBe(401);
    expect((await post('/v1/cards/card-1/provision', '{}')).status).toBe(401);
  });

  it('answers 404 to any other route or method', async () => {
    expect((await post('/v3/digitalwalletprovisionrequests/applepay', '{}')).status).toBe(404);
    expect((await post('/v1/cards//provision', '{}')).status).toBe(404);
    expect((await fetch(`${base}/v1/cards/card-1/provision`)).status).toBe(404);
  });

  it('answers 400 to a body that is not JSON', async () => {
    expect(await post('/v1/cards/card-1/provision', '{"digital_wallet":', { authorization: 'key' })).toEqual({
      status: 400,
      body: { message: 'processor simulator: the body is not JSON' },
    });
  });

  it('lets a slow answer go when its client does, and closes with one pending (nothing waits its 30 s)', async () => {
    const gone = fetch(`${base}/v1/cards/slow-1/provision`, {
      method: 'POST',
      body: '{"digital_wallet":"GOOGLE_PAY"}',
      headers: { authorization: 'key' },
      signal: AbortSignal.timeout(100),
    });
    await expect(gone).rejects.toThrow(/aborted|timeout/i);
    const pending = post('/v1/cards/slow-1/provision', '{"digital_wallet":"GOOGLE_PAY"}', { authorization: 'key' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    server.closeAllConnections();
    await expect(pending).rejects.toThrow();
  });

  /** What the simulator answers `request` sent as raw bytes on a connection of its own ('' when it only closes). */
  const raw = (request: string, { closeAfterWrite = false } = {}) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(portOf(server), '127.0.0.1', () => {
        socket.write(request);
        if (closeAfterWrite) socket.destroy();
      });
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('close', () => resolve(answer));
      socket.on('error', reject);
      if (closeAfterWrite) resolve('');
    });
  const alive = async () => expect((await post('/v1/cards/card-1/provision', '{}')).status).toBe(401);

  it('answers 404 to a card token that does not percent-decode, and stays up', async () => {
    expect((await post('/v1/cards/%ZZ/provision', '{}', { authorization: 'key' })).status).toBe(404);
    await alive();
  });

  it('answers 404 to a request target that is not a URL, and stays up', async () => {
    expect(await raw('GET http://[ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')).toMatch(/^HTTP\/1\.1 404 /);
    await alive();
  });

  it('lets a client go that closes in the middle of its body, and stays up', async () => {
    const head = 'POST /v1/cards/card-1/provision HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';
    await raw(`${head}{"digital_wallet":`, { closeAfterWrite: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await alive();
  });
});
