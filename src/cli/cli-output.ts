import { DomainError } from '../common/domain-error';
import { isDatabaseUnavailable } from '../database/database-errors';
import { UsageError } from './cli-options';

/** docs/api.md 8: one JSON object on stdout per successful command. */
export function printResult(value: object): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** docs/api.md 8: on failure, `{code, message}` on stderr and a non-zero exit. */
export function printFailure(code: string, message: string): void {
  process.stderr.write(`${JSON.stringify({ code, message })}\n`);
}

export function failureOf(error: unknown): { code: string; message: string } {
  const message = (error as Error)?.message ?? String(error);
  if (error instanceof DomainError) return { code: error.code, message };
  if (error instanceof UsageError) return { code: 'usage', message };
  if (isDatabaseUnavailable(error)) return { code: 'unavailable', message: `database unavailable: ${message}` };
  return { code: 'internal error', message };
}
