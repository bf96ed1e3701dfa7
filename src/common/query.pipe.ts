import { PipeTransform } from '@nestjs/common';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { Errors } from './domain-error';

/**
 * A query string through its DTO, with class-validator as the body pipes check bodies:
 * `@Query(new QueryPipe(PageQueryDto))`. Every problem, one per parameter, is named in the one
 * 400 `bad request` (docs/api.md 10.7, 10.9). A parameter the DTO does not declare is dropped,
 * not refused: the lists have always ignored them (a cache-busting `?_=…` keeps working), and
 * docs/api.md names only bad values of theirs as errors.
 */
export class QueryPipe<T extends object> implements PipeTransform<Record<string, unknown>, T> {
  constructor(private readonly dto: ClassConstructor<T>) {}

  transform(query: Record<string, unknown>): T {
    const instance = plainToInstance(this.dto, query);
    const errors = validateSync(instance, { whitelist: true, stopAtFirstError: true });
    const problems = errors.flatMap(({ property, constraints }) => Object.values(constraints ?? {}).map((text) => `${property}: ${text}`));
    if (problems.length > 0) throw Errors.badRequest(problems);
    return instance;
  }
}
