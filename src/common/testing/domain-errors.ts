import { expect } from 'vitest';
import { errorBody } from '../../http/error-answer';
import { DomainError } from '../domain-error';

/** A DomainError as the client sees it: its status and `{code, message?}` body. */
export interface SeenError {
  status: number;
  body: unknown;
}

const seen = (error: unknown): SeenError => {
  expect(error).toBeInstanceOf(DomainError);
  return { status: (error as DomainError).status, body: errorBody(error as DomainError) };
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
