import type { PipeTransform } from '@nestjs/common';
import type { ClassConstructor } from 'class-transformer';
import type { RequestParts } from './request-input';
import { validateParameters } from './validate-input';

/**
 * The input of a route that reads only its query string, through its DTO:
 * `@RequestInput(new QueryPipe(PageQueryDto))`. Every problem, one per parameter, is named in the
 * one 400 `bad request` (docs/api.md 10.7, 10.9).
 */
export class QueryPipe<T extends object> implements PipeTransform<RequestParts, T> {
  constructor(private readonly dto: ClassConstructor<T>) {}

  transform({ query }: RequestParts): T {
    return validateParameters(this.dto, query);
  }
}
