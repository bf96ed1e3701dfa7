import type { IncomingHttpHeaders } from 'node:http';
import type { CredentialSource } from '../../../src/auth/credentials';

/** A request with these headers, each sent once (raw headers as Node keeps them), then `extraRaw` as sent after them. */
export function requestWith(headers: IncomingHttpHeaders, extraRaw: string[] = []): CredentialSource {
  const raw = Object.entries(headers).flatMap(([name, value]) => (value === undefined ? [] : [name, String(value)]));
  return { headers, rawHeaders: [...raw, ...extraRaw] };
}
