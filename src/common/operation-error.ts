/**
 * A rule of an operator operation (SPEC 8) broken: unknown id or token, duplicate, membership
 * missing. The CLI prints it as `{code, message}`.
 */
export class OperationError extends Error {
  constructor(
    readonly code: 'not found' | 'conflict' | 'invalid',
    message: string,
  ) {
    super(message);
  }
}
