import { startHttpsTestServer } from './https-test-server';

/** One token request as the server got it: its path, headers and form. */
export interface TokenRequest {
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly form: Record<string, string>;
}

/** How the server answers the `n`th request to a path (1-based): by default a new bearer token `tok-<n>` for an hour. */
export type TokenAnswer = (n: number) => { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number };

export interface TokenServer {
  readonly port: number;
  readonly requests: TokenRequest[];
  /** The token requests to `path` so far. */
  requestsTo(path: string): TokenRequest[];
  on(path: string, answer: TokenAnswer): void;
  /** Whether the server gave out this token (a receiver checks an attempt's). */
  issued(token: string): boolean;
  close(): Promise<void>;
}

/**
 * An OAuth 2.0 token endpoint (RFC 6749 4.4) on loopback, with the receiver's certificate
 * (*.example.com), for docs/api.md 10.16: it records every request and answers as each path is
 * told to, a token of its own by default, so that a test can check the tokens attempts carry.
 */
export async function startTokenServer(): Promise<TokenServer> {
  const requests: TokenRequest[] = [];
  const answers = new Map<string, TokenAnswer>();
  const issued = new Set<string>();
  const counts = new Map<string, number>();
  const server = await startHttpsTestServer(({ path, headers, body }, _req, res) => {
    requests.push({ path, headers, form: Object.fromEntries(new URLSearchParams(body.toString('utf8'))) });
    const n = (counts.get(path) ?? 0) + 1;
    counts.set(path, n);
    const answer = (answers.get(path) ?? bearer(3600))(n);
    const token = (answer.body as { access_token?: unknown } | undefined)?.access_token;
    if (typeof token === 'string') issued.add(token);
    setTimeout(() => {
      if (!res.destroyed)
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body ?? {}));
    }, answer.delayMs ?? 0);
  });
  return {
    port: server.port,
    requests,
    requestsTo: (path) => requests.filter((request) => request.path === path),
    on: (path, answer) => answers.set(path, answer),
    issued: (token) => issued.has(token),
    close: () => server.close(),
  };
}

/** A new bearer token per request, `tok-<path's n>-<random>`, for `expiresIn` seconds (undefined: no expires_in). */
export const bearer =
  (expiresIn?: number, delayMs?: number): TokenAnswer =>
  (n) => ({
    status: 200,
    delayMs,
    body: {
      access_token: `tok-${n}-${Math.random().toString(36).slice(2)}`,
      token_type: 'Bearer',
      ...(expiresIn !== undefined && { expires_in: expiresIn }),
    },
  });
