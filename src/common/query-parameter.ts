import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { ValidateBy, ValidateIf } from 'class-validator';

/** Express makes a repeated parameter an array of its values. */
const GivenOnce = () =>
  ValidateBy({ name: 'givenOnce', validator: { validate: (value) => !Array.isArray(value), defaultMessage: () => 'must be given once' } });

/**
 * A parameter of a query DTO (QueryPipe): optional, documented as a query parameter, and given
 * at most once; `rules` are checked after that, in order, and only the first broken one is named.
 */
export const QueryParameter = (doc: ApiPropertyOptions, ...rules: PropertyDecorator[]) =>
  applyDecorators(
    ApiPropertyOptional(doc),
    ValidateIf((_, value) => value !== undefined),
    GivenOnce(),
    ...rules,
  );
