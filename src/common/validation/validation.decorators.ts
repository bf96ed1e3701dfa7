import { applyDecorators } from '@nestjs/common';
import { ClassConstructor, Transform, Type } from 'class-transformer';
import { IsDate, IsObject, ValidateBy, ValidateIf, ValidateNested, ValidationOptions } from 'class-validator';
import type { DomainError } from '../domain-error';
import { ISO_MOMENT_RULE, parseIsoMoment } from '../iso-moment';

/*
 * The building blocks of every DTO's rules (validateBody, validateParameters): each feature
 * composes its fields from these and class-validator's own, with applyDecorators, beside the
 * OpenAPI description of the same field. A rule listed first in applyDecorators is checked first,
 * and only the first broken one of a member is named.
 */

/** What a broken rule answers when it is not a shape problem (400 `bad request`): its problems as `message`. */
export type Answer = (problems: string[]) => DomainError;

/**
 * The options of a rule whose breach answers `answer` rather than 400 `bad request`, such as a
 * webhook name's 400 `invalid name`: validateBody answers it before any shape problem.
 */
export const answeredWith = (answer: Answer, message?: string): ValidationOptions => ({
  ...(message !== undefined && { message }),
  context: { answer },
});

/** The answer a broken rule carries (answeredWith), if any. */
export const answerOf = (context: unknown): Answer | undefined => (context as { answer?: Answer } | undefined)?.answer;

/** A member that must be present; a present null is then for its other rules to refuse ("must be a string"). */
export const Required = (options?: ValidationOptions) =>
  ValidateBy({ name: 'isPresent', validator: { validate: (value) => value !== undefined, defaultMessage: () => 'is required' } }, options);

/** A member that may be absent, and with `nullable` null too (a patch's "clear"): its other rules apply only to a value. */
export const Optional = ({ nullable = false } = {}) =>
  ValidateIf((_: object, value: unknown) => value !== undefined && !(nullable && value === null));

/** A whole number from 1 to 2^53 - 1: an id (a larger one could not be told from its neighbours). */
export const PositiveInteger = () =>
  ValidateBy({
    name: 'isPositiveInteger',
    validator: {
      validate: (value) => typeof value === 'number' && Number.isSafeInteger(value) && value >= 1,
      defaultMessage: () => 'must be a positive integer',
    },
  });

/**
 * A moment (docs/api.md 10.7, 10.14): ISO 8601 with `Z` or an offset, read as a Date. `repair`
 * first mends what the query string did to the text (an unencoded `+` read as a space).
 */
export const IsoMoment = (repair: (text: string) => string = (text) => text) =>
  applyDecorators(
    Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? (parseIsoMoment(repair(value)) ?? value) : value)),
    IsDate({ message: ISO_MOMENT_RULE }),
  );

const KEPT_AS_SENT = Symbol('kept as sent');

/**
 * A member handed on exactly as it was sent, never copied (the platform's event `data`, which
 * reaches the receivers byte for byte): class-transformer's copy would drop keys such as
 * `constructor` and recurse without a bound. Its rules see the value as sent, and its own keys are
 * not checked as members.
 */
export const KeptAsSent = (): PropertyDecorator => (target, key) => {
  Reflect.defineMetadata(KEPT_AS_SENT, [...keptAsSent(target.constructor), key], target.constructor);
};

/** The members of `dto` that are KeptAsSent. */
export const keptAsSent = (dto: object): readonly (string | symbol)[] =>
  (Reflect.getMetadata(KEPT_AS_SENT, dto) as string[] | undefined) ?? [];

const NESTED = Symbol('nested');

/** Which DTO an object member holds, chosen from the object it is a member of (an `auth` by its `type`). */
export type NestedType = (parent: Record<string, unknown>) => ClassConstructor<object>;

/**
 * A member holding an object of a DTO of its own (a webhook's event group, its `auth`): validated
 * inside, its undeclared members refused as the body's are, by their path (`auth.extra`).
 * validateBody reads the DTO `type` names from here, so that class-transformer never meets an
 * undeclared member at any level.
 */
export const NestedObject = (type: NestedType): PropertyDecorator =>
  applyDecorators(
    IsObject({ message: 'must be an object' }),
    ValidateNested(),
    Type((options) => type((options?.object ?? {}) as Record<string, unknown>)),
    (target: object, key: string | symbol) => {
      const nested = new Map(nestedObjects(target.constructor));
      Reflect.defineMetadata(NESTED, nested.set(key, type), target.constructor);
    },
  );

/** The members of `dto` that are NestedObject, with their type. */
export const nestedObjects = (dto: object): ReadonlyMap<string | symbol, NestedType> =>
  (Reflect.getMetadata(NESTED, dto) as Map<string | symbol, NestedType> | undefined) ?? new Map();

/**
 * How many levels `root` has (an array is one), counted no further than one past `deepest`; a walk
 * rather than a recursion, because a value as deep as the body limit allows would overflow the stack.
 */
function depthOf(root: unknown, deepest: number): number {
  let found = 0;
  const pending: [unknown, number][] = [[root, 1]];
  while (pending.length > 0) {
    const [value, depth] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    found = Math.max(found, depth);
    if (found > deepest) return found;
    for (const child of Object.values(value)) {
      // Only containers go on the stack: an object of 10 000 numbers costs no 10 000 tuples.
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return found;
}

/** An object that is neither null nor an array, as a JSON body or member must be. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function jsonObjectProblem(value: unknown, maxDepth: number): string | undefined {
  if (!isJsonObject(value)) return 'must be a JSON object';
  return depthOf(value, maxDepth) > maxDepth ? `must be at most ${maxDepth} levels deep` : undefined;
}

/** Any JSON object of at most `maxDepth` levels (an array is a level), KeptAsSent. */
export const JsonObjectAsSent = ({ maxDepth }: { maxDepth: number }) =>
  applyDecorators(
    KeptAsSent(),
    ValidateBy({
      name: 'isJsonObject',
      validator: {
        validate: (value) => jsonObjectProblem(value, maxDepth) === undefined,
        defaultMessage: (args) => jsonObjectProblem(args?.value, maxDepth) ?? '',
      },
    }),
  );
