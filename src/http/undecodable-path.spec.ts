import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { keepUndecodablePath } from './undecodable-path';

/** The URL the router sees after the middleware, and that it went on. */
function routed(url: string): string {
  const req = { url } as Request;
  let wentOn = false;
  keepUndecodablePath(req, {} as Response, () => (wentOn = true));
  expect(wentOn).toBe(true);
  return req.url;
}

describe('keepUndecodablePath', () => {
  it.each([
    ['a % without two hex digits', '/api/webhook/%ZZ', '/api/webhook/%25ZZ'],
    ['a % at the end', '/api/webhook/a%', '/api/webhook/a%25'],
    ['escapes that are not UTF-8', '/api/webhook/%E0%A4', '/api/webhook/%25E0%25A4'],
    ['an undecodable segment before a query string', '/api/webhook/%ZZ/deliveries?state=%ZZ', '/api/webhook/%25ZZ/deliveries?state=%ZZ'],
  ])('escapes the %% of %s, in that segment only', (_, url, kept) => {
    expect(routed(url)).toBe(kept);
  });

  it.each([
    ['no escape', '/api/webhook/hook-01'],
    ['escapes that decode', '/api/webhook/caf%C3%A9%20x'],
    ['an undecodable query string alone', '/api/webhook/a/deliveries?state=%ZZ'],
  ])('leaves a path with %s as it was', (_, url) => {
    expect(routed(url)).toBe(url);
  });
});
