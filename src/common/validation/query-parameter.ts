import { applyDecorators, Type } from '@nestjs/common';
import { ApiQuery, ApiQueryOptions } from '@nestjs/swagger';
import { ValidateBy } from 'class-validator';
import { IsoMoment, Optional } from './validation.decorators';

/** Express makes a repeated parameter an array of its values. */
const GivenOnce = () =>
  ValidateBy({ name: 'givenOnce', validator: { validate: (value) => !Array.isArray(value), defaultMessage: () => 'must be given once' } });

const PARAMETERS = Symbol('query parameters');

/** The description of each QueryParameter of `dto`, by name, in the order declared. */
const parametersOf = (dto: Type): [string, ApiQueryOptions][] => Reflect.getMetadata(PARAMETERS, dto) ?? [];

const Described =
  (doc: ApiQueryOptions): PropertyDecorator =>
  (target, key) =>
    Reflect.defineMetadata(PARAMETERS, [...parametersOf(target.constructor as Type), [key, doc]], target.constructor);

/**
 * A parameter of a query DTO (validateParameters): optional, described for ApiQueryOf, and
 * given at most once; `rules` are checked after that, in order, and only the first broken
 * one is named.
 */
export const QueryParameter = (doc: ApiQueryOptions, ...rules: PropertyDecorator[]) =>
  applyDecorators(Described(doc), Optional(), GivenOnce(), ...rules);

/**
 * The query parameters of a route that reads `dto` (a RequestInput's pipe), as OpenAPI describes
 * them: Nest's scanner sees no `@Query()` parameter to find them on.
 */
export const ApiQueryOf = (dto: Type) =>
  applyDecorators(...parametersOf(dto).map(([name, doc]) => ApiQuery({ ...doc, name, required: false })));

/**
 * A moment (docs/api.md 10.7's `since` and `until`): ISO 8601 with `Z` or an offset, read as a
 * Date. An offset's `+` that the query string turned into a space (an unencoded `+02:00`) is
 * read as the `+` it was.
 */
export const MomentParameter = (description: string, ...rules: PropertyDecorator[]) =>
  QueryParameter(
    { type: 'string', format: 'date-time', description },
    IsoMoment((text) => text.replace(/ (?=\d{2}:?\d{2}$)/, '+')),
    ...rules,
  );
