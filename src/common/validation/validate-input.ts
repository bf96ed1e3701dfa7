import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync, ValidationError, ValidatorOptions } from 'class-validator';
import { Errors } from '../domain-error';
import { Answer, answerOf, isJsonObject, keptAsSent } from './validation.decorators';

/*
 * The one validation engine (issue 26): a body, a query string or a path's parameters through the
 * class-validator DTO that is also its OpenAPI description. Every problem is named in the answer's
 * `message` as `<member path>: <rule>`; a rule answeredWith an error of its own (a name's `invalid
 * name`) answers that before any shape problem, otherwise 400 `bad request`. Each route's pipe
 * calls these in the order docs/api.md gives for it (name, then shape, then URLs).
 */

/**
 * A JSON body: an object (none at all counts as {}: a legacy delete without one lacks its name)
 * with no member the DTO does not declare, at any depth. `at` names a body inside another (a
 * batch's `events[3]`): its problems are then named from there (`events[3].type: …`).
 */
export function validateBody<T extends object>(dto: ClassConstructor<T>, body: unknown, at?: string): T {
  const plain = body === undefined ? {} : body;
  if (!isJsonObject(plain)) throw Errors.badRequest([`${at ?? 'body'}: must be a JSON object`]);
  const unknown = hiddenKeys(plain, keptAsSent(dto)).map((problem) => (at === undefined ? problem : `${at}.${problem}`));
  return validated(dto, plain, { whitelist: true, forbidNonWhitelisted: true }, unknown, at);
}

/**
 * Query string or path parameters. One the DTO does not declare is dropped, not refused: the
 * lists have always ignored them (a cache-busting `?_=…` keeps working), and docs/api.md names
 * only bad values of theirs as errors.
 */
export function validateParameters<T extends object>(dto: ClassConstructor<T>, parameters: object): T {
  return validated(dto, parameters, { whitelist: true });
}

/**
 * `unknown`: the members found unknown before validation (hiddenKeys), shape problems like any
 * other; `at`: where the object is, when it is not the whole input.
 */
function validated<T extends object>(
  dto: ClassConstructor<T>,
  plain: object,
  options: ValidatorOptions,
  unknown: string[] = [],
  at = '',
): T {
  const instance = instanceOf(dto, plain);
  const problems = [
    ...validateSync(instance, { ...options, stopAtFirstError: true }).flatMap((error) => problemsOf(error, at)),
    ...unknown.map((message): Problem => ({ message })),
  ];
  const first = problems.find((problem) => problem.answer !== undefined);
  if (first?.answer !== undefined) throw first.answer(problems.filter((p) => p.answer === first.answer).map((p) => p.message));
  if (problems.length > 0) throw Errors.badRequest(problems.map((problem) => problem.message));
  return instance;
}

/** No DTO is more than two objects deep (a body, a group); below this nothing is ever valid. */
const MAX_DEPTH = 3;

/**
 * The DTO instance: class-transformer's copy (its @Type and @Transform rules) of a copy with every
 * container below MAX_DEPTH emptied, because class-transformer recurses without a bound, and
 * without the keys it would stumble on (hiddenKeys reports them); the
 * members KeptAsSent are set as they were sent. Validation still names what is wrong: `{"name":
 * [[[…]]]}` is still a name that is not a string.
 */
function instanceOf<T extends object>(dto: ClassConstructor<T>, plain: object): T {
  const asSent = keptAsSent(dto);
  const given = Object.entries(plain);
  const copied = given.filter(([key]) => !asSent.includes(key) && !hides(key)).map(([key, value]) => [key, capDepth(value, 1)]);
  const instance = plainToInstance(dto, Object.fromEntries(copied));
  for (const [key, value] of given) if (asSent.includes(key)) Reflect.set(instance, key, value);
  return instance;
}

function capDepth(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value)) return value.map((item) => capDepth(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !hides(key))
      .map(([key, item]) => [key, capDepth(item, depth + 1)]),
  );
}

/** A key class-transformer would stumble on or skip (hiddenKeys names them): never handed to it. */
const hides = (key: string): boolean => key in Object.prototype;

/**
 * Keys class-transformer would hide from the whitelist: it skips `__proto__`, `constructor` and
 * every key naming an inherited function (`toString`, `valueOf`, ...). Found at any depth (but
 * inside the members KeptAsSent), iteratively, and refused as the unknown members they are: a
 * shape problem, after a name's own answer like every other.
 */
function hiddenKeys(body: object, asSent: readonly (string | symbol)[]): string[] {
  const found: string[] = [];
  const pending: [value: unknown, path: string][] = [[body, '']];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    for (const key of Object.keys(value)) {
      const at = path ? `${path}.${key}` : key;
      if (hides(key)) found.push(`${at}: unknown member`);
      else if (path !== '' || !asSent.includes(key)) pending.push([(value as Record<string, unknown>)[key], at]);
    }
  }
  return found.sort();
}

interface Problem {
  readonly message: string;
  readonly answer?: Answer;
}

function problemsOf(error: ValidationError, parent: string): Problem[] {
  const path = parent ? `${parent}.${error.property}` : error.property;
  const own = Object.entries(error.constraints ?? {}).map(([rule, text]): Problem => {
    if (rule === 'whitelistValidation') return { message: `${path}: unknown member` };
    return { message: `${path}: ${text}`, answer: answerOf(error.contexts?.[rule]) };
  });
  return [...own, ...(error.children ?? []).flatMap((child) => problemsOf(child, path))];
}
