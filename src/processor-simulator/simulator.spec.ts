import type { Server } from 'node:http';
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
});
