import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { QueryParameter } from './validation/query-parameter';

/** The paged lists' `limit` (docs/api.md 10.7, 10.9). */
export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;

const LIMIT_RULE = `must be a whole number from 1 to ${MAX_PAGE_LIMIT}`;

/** `limit`: up to three digits (`007` is 7; ` 7`, `7.0` or `1e1` are no number) from 1 to MAX_PAGE_LIMIT. */
export const PageLimit = () =>
  QueryParameter(
    { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT, default: DEFAULT_PAGE_LIMIT },
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : value)),
    IsInt({ message: LIMIT_RULE }),
    Min(1, { message: LIMIT_RULE }),
    Max(MAX_PAGE_LIMIT, { message: LIMIT_RULE }),
  );

/** `cursor`: the `next` of the page before, checked by the list itself (PageCursors), which knows what it pages. */
export const PageCursor = () => QueryParameter({ type: 'string' });

/** `?limit=&cursor=` of a paged list (the audit trail). */
export class PageQueryDto {
  @PageLimit() limit: number = DEFAULT_PAGE_LIMIT;
  @PageCursor() cursor?: string;
}
