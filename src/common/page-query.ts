import { Errors } from './domain-error';

/** The paged lists' `limit` (docs/api.md 10.7, 10.9). */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

/** The OpenAPI schema of `limit`. */
export const PAGE_LIMIT_SCHEMA = { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT } as const;

/**
 * The query string of a paged list (the delivery log, the audit trail): `limit` and `cursor`,
 * and whatever else a list reads with `one`. Every problem is collected; `done` answers them all
 * at once as 400 `bad request`.
 */
export class PageQuery {
  readonly problems: string[] = [];
  readonly limit: number;
  readonly cursor: string | undefined;

  constructor(private readonly query: Record<string, unknown>) {
    const limit = this.one('limit');
    this.limit = limit === undefined ? DEFAULT_PAGE_LIMIT : /^\d{1,3}$/.test(limit) ? Number(limit) : NaN;
    if (!(this.limit >= 1 && this.limit <= MAX_PAGE_LIMIT)) this.problems.push(`limit: must be a whole number from 1 to ${MAX_PAGE_LIMIT}`);
    this.cursor = this.one('cursor');
  }

  /** A parameter given at most once (Express makes a repeated one an array). */
  one(name: string): string | undefined {
    const value = this.query[name];
    if (value === undefined || typeof value === 'string') return value;
    this.problems.push(`${name}: must be given once`);
    return undefined;
  }

  done(): void {
    if (this.problems.length > 0) throw Errors.badRequest(this.problems);
  }
}
