import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDate, ValidateBy, ValidateIf } from 'class-validator';
import { ISO_MOMENT_RULE, parseIsoMoment } from './iso-moment';

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

/**
 * A moment (docs/api.md 10.7's `since` and `until`): ISO 8601 with `Z` or an offset, read as a
 * Date. An offset's `+` that the query string turned into a space (an unencoded `+02:00`) is
 * read as the `+` it was.
 */
export const MomentParameter = (description: string, ...rules: PropertyDecorator[]) =>
  QueryParameter(
    { type: 'string', format: 'date-time', description },
    Transform(({ value }: { value: unknown }) =>
      typeof value === 'string' ? (parseIsoMoment(value.replace(/ (?=\d{2}:?\d{2}$)/, '+')) ?? value) : value,
    ),
    IsDate({ message: ISO_MOMENT_RULE }),
    ...rules,
  );
