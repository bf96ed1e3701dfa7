import type { DomainError, ErrorCode } from '../common/domain-error';

/** The one error body (docs/api.md 7): `{code, message?}`. */
export interface ErrorBody {
  code: ErrorCode;
  message?: string[];
}

/** What a DomainError answers over HTTP: its status, its body, and the headers it needs. */
export interface ErrorAnswer {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string>>;
}

export const errorBody = ({ code, details }: DomainError): ErrorBody => (details ? { code, message: [...details] } : { code });

export function errorAnswer(error: DomainError, headers: Record<string, string> = {}): ErrorAnswer {
  if (error.retryAfterSeconds !== undefined) headers['Retry-After'] = String(error.retryAfterSeconds);
  return { status: error.status, body: errorBody(error), headers };
}
