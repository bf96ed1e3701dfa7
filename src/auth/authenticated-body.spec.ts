import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { describe, expect, it, vi } from 'vitest';
import { DomainError } from '../common/domain-error';
import type { AuthGuard } from './auth.guard';
import { authenticatedBody } from './authenticated-body';

const POLICY = { kind: 'platform' } as const;

/** Runs the middleware for one request; what it handed on, and to whom. */
async function run(method: string, path: string, admit: () => Promise<void>) {
  const guard = { admit: vi.fn(admit) };
  const parser = vi.fn<RequestHandler>((_req, _res, next) => next());
  const next = vi.fn<(error?: unknown) => void>();
  const req = { method, path } as Request;
  authenticatedBody(guard as unknown as AuthGuard, POLICY, parser)(req, {} as Response, next as NextFunction);
  await vi.waitFor(() => expect(next).toHaveBeenCalled());
  return { guard, parser, next, req };
}

describe('authenticatedBody', () => {
  it('admits a POST to the route, then hands the request to its parser', async () => {
    const { guard, parser, next, req } = await run('POST', '/', async () => undefined);
    expect(guard.admit).toHaveBeenCalledWith(req, POLICY);
    expect(parser).toHaveBeenCalledOnce();
    expect(next).toHaveBeenCalledWith();
  });

  it('answers a refused request with its error and never runs the parser (the body is not read)', async () => {
    const refusal = new DomainError(401, 'unauthorized');
    const { parser, next } = await run('POST', '/', () => Promise.reject(refusal));
    expect(parser).not.toHaveBeenCalled();
    expect(next).toHaveBeenCalledWith(refusal);
  });

  it.each([
    ['GET', '/'],
    ['PUT', '/'],
    ['POST', '/other'],
  ])('leaves %s %s to the parser of every route, unauthenticated here', async (method, path) => {
    const { guard, parser, next } = await run(method, path, async () => undefined);
    expect(guard.admit).not.toHaveBeenCalled();
    expect(parser).not.toHaveBeenCalled();
    expect(next).toHaveBeenCalledWith();
  });
});
