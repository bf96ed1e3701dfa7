import { expect } from 'vitest';
import { errorBody } from '../../../src/http/error-answer';
import { DomainError } from '../../../src/common/domain-error';

/** A DomainError as the client sees it: its status, `{code, message?}` body and any Retry-After. */
export interface SeenError {
  status: number;
  body: unknown;
  retryAfter?: number;
}

const seen = (error: unknown): SeenError => {
  expect(error).toBeInstanceOf(DomainError);
  const { status, retryAfterSeconds } = error as DomainError;
  return { status, body: errorBody(error as DomainError), ...(retryAfterSeconds !== undefined && { retryAfter: retryAfterSeconds }) };
};

/** The DomainError `run` throws (fails the test when it throws none or another kind). */
export function thrownBy(run: () => unknown): SeenError {
  try {
    run();
  } catch (error) {
    return seen(error);
  }
  throw new Error('expected a DomainError, nothing was thrown');
}

/** The DomainError a promise rejects with (fails the test when it resolves or rejects otherwise). */
export async function rejectionOf(promise: Promise<unknown>): Promise<SeenError> {
  const error = await promise.then(
    (value) => {
      throw new Error(`expected a DomainError, got ${JSON.stringify(value)}`);
    },
    (reason: unknown) => reason,
  );
  return seen(error);
}
