import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../common/domain-error';
import { requireJsonBody } from './json-body';

/** What requireJsonBody passes on for a request with a body of this type: undefined, or the error's code. */
function verdict(method: string, contentType: string | undefined): string | undefined {
  const headers: Record<string, string> = { 'content-length': '2' };
  if (contentType !== undefined) headers['content-type'] = contentType;
  let passed: unknown = 'not called';
  requireJsonBody({ method, headers } as unknown as Request, {} as never, (error?: unknown) => (passed = error));
  return passed instanceof DomainError ? passed.code : (passed as undefined);
}

describe('requireJsonBody (docs/api.md 4)', () => {
  it.each(['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON; Charset="Utf-8"'])(
    'accepts %s',
    (type) => {
      expect(verdict('POST', type)).toBeUndefined();
    },
  );

  it('accepts a JSON Merge Patch with charset=utf-8 on PATCH', () => {
    expect(verdict('PATCH', 'application/merge-patch+json; charset=utf-8')).toBeUndefined();
  });

  it.each([
    'application/json; charset=utf-7',
    'application/json; charset=utf-16',
    'application/json; charset="UTF-16LE"',
    'application/json; charset=iso-8859-1',
    'application/json; charset=utf8',
  ])('refuses %s: a charset other than utf-8 is 415', (type) => {
    expect(verdict('POST', type)).toBe('unsupported media type');
  });

  it.each([
    'application/json; version=1',
    'application/json; charset=utf-8; version=1',
    'application/json; charset',
    'application/json; charset=utf-8, text/plain',
  ])('refuses %s: a parameter other than the charset, or one that does not parse, is 415', (type) => {
    expect(verdict('POST', type)).toBe('unsupported media type');
  });

  it.each([undefined, 'text/plain', 'application/x-www-form-urlencoded'])('refuses a body of type %s', (type) => {
    expect(verdict('POST', type)).toBe('unsupported media type');
  });

  it('refuses a JSON Merge Patch on POST', () => {
    expect(verdict('POST', 'application/merge-patch+json')).toBe('unsupported media type');
  });

  it('lets a request without a body pass whatever its type', () => {
    let passed: unknown = 'not called';
    requireJsonBody(
      { method: 'GET', headers: { 'content-type': 'text/plain' } } as unknown as Request,
      {} as never,
      (e?: unknown) => (passed = e),
    );
    expect(passed).toBeUndefined();
  });
});
