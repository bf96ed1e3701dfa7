import { ClassConstructor, plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationError, ValidatorOptions } from 'class-validator';
import { Errors } from '../domain-error';
import { Problems } from './problems';
import { Answer, answerOf, isJsonObject, keptAsSent, nestedObjects, NestedType } from './validation.decorators';

/*
 * The one validation engine (issue 26): a body, a query string or a path's parameters through the
 * class-validator DTO that is also its OpenAPI description. Every problem is named in the answer's
 * `message` as `<member path>: <rule>`; a rule answeredWith an error of its own (a name's `invalid
 * name`) answers that before any shape problem, otherwise 400 `bad request`. Each route's pipe
 * calls these in the order docs/api.md gives for it (name, then shape, then URLs).
 *
 * What class-transformer copies is bounded by the DTO, not by the input (issue 39: its copy is
 * quadratic in an object's members, 120 000 keys took 5 s): the members a DTO does not declare are
 * dropped, at its every level, before it sees them, and reported here; the values of declared
 * members are copied no deeper than MAX_DEPTH and no wider than MAX_COPIED_MEMBERS. The answer
 * lists at most 20 problems (Problems), however many the input has.
 */

/** What an input came to: the DTO instance, or its problems and the answer they call for (undefined: 400 `bad request`). */
export type Checked<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly answer: Answer | undefined; readonly problems: Problems };

/**
 * A JSON body: an object (none at all counts as {}: a legacy delete without one lacks its name)
 * with no member the DTO does not declare, at any depth. `at` names a body inside another (a
 * batch's `events[3]`): its problems are then named from there (`events[3].type: …`).
 */
export function validateBody<T extends object>(dto: ClassConstructor<T>, body: unknown, at?: string): T {
  return answered(checkBody(dto, body, at));
}

/** validateBody's verdict, for a caller that gathers the problems of many bodies (a batch). */
export function checkBody<T extends object>(dto: ClassConstructor<T>, body: unknown, at?: string): Checked<T> {
  const plain = body === undefined ? {} : body;
  if (!isJsonObject(plain)) {
    const problems = new Problems();
    problems.add(`${at ?? 'body'}: must be a JSON object`);
    return { ok: false, answer: undefined, problems };
  }
  const unknown = new Problems();
  return checked(dto, plain, { whitelist: true, forbidNonWhitelisted: true }, unknown, at ?? '');
}

/**
 * Query string or path parameters. One the DTO does not declare is dropped, not refused: the
 * lists have always ignored them (a cache-busting `?_=…` keeps working), and docs/api.md names
 * only bad values of theirs as errors.
 */
export function validateParameters<T extends object>(dto: ClassConstructor<T>, parameters: object): T {
  return answered(checked(dto, parameters, { whitelist: true }, undefined, ''));
}

function answered<T>(verdict: Checked<T>): T {
  if (verdict.ok) return verdict.value;
  throw (verdict.answer ?? Errors.badRequest)(verdict.problems.messages);
}

/**
 * `unknown`: where the members the DTO does not declare are reported (undefined: dropped
 * silently); they come before the shape problems, in the order sent. `at`: where the object is,
 * when it is not the whole input.
 */
function checked<T extends object>(
  dto: ClassConstructor<T>,
  plain: object,
  options: ValidatorOptions,
  unknown: Problems | undefined,
  at: string,
): Checked<T> {
  const instance = instanceOf(dto, plain as Record<string, unknown>, unknown, at);
  const shape = validateSync(instance, { ...options, stopAtFirstError: true }).flatMap((error) => problemsOf(error, at));
  const first = shape.find((problem) => problem.answer !== undefined);
  const answer = first?.answer;
  const problems = new Problems();
  if (answer === undefined && unknown !== undefined) problems.addAll(unknown);
  for (const problem of shape) if (problem.answer === answer) problems.add(problem.message);
  return problems.count === 0 ? { ok: true, value: instance } : { ok: false, answer, problems };
}

/** No DTO is more than two objects deep (a body, a group); below this nothing is ever valid. */
const MAX_DEPTH = 3;
/** The members of a value's object (not a DTO's) copied for the rules: none reads inside one, and each costs class-transformer the square. */
const MAX_COPIED_MEMBERS = 16;

/**
 * The DTO instance: class-transformer's copy (its @Type and @Transform rules) of the input's
 * declared members (declaredCopy), the members KeptAsSent then set as they were sent. Validation
 * still names what is wrong: `{"name": [[[…]]]}` is still a name that is not a string.
 */
function instanceOf<T extends object>(
  dto: ClassConstructor<T>,
  plain: Record<string, unknown>,
  unknown: Problems | undefined,
  at: string,
): T {
  const instance = plainToInstance(dto, declaredCopy(dto, plain, unknown, at));
  for (const key of keptAsSent(dto)) if (Object.hasOwn(plain, key)) Reflect.set(instance, key, plain[key as string]);
  return instance;
}

/**
 * A copy of `plain` with only the members `dto` declares (a NestedObject's copied the same way
 * with its own DTO), each undeclared one reported to `unknown` by its path; keys naming
 * something inherited (`__proto__`, `constructor`, `toString`) are never declared. The members
 * KeptAsSent are left out (instanceOf sets them).
 */
function declaredCopy(dto: ClassConstructor<object>, plain: Record<string, unknown>, unknown: Problems | undefined, at: string): object {
  const { declared, nested, asSent } = shapeOf(dto);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(plain)) {
    const path = () => (at ? `${at}.${key}` : key);
    if (!declared.has(key)) {
      unknown?.addLazily(() => `${path()}: unknown member`);
      continue;
    }
    if (asSent.has(key)) continue;
    const value = plain[key];
    const type = nested.get(key);
    if (type !== undefined && isJsonObject(value)) copy[key] = declaredCopy(type(plain), value, unknown, path());
    else {
      if (unknown !== undefined) reportHiddenKeys(value, path(), unknown);
      copy[key] = boundedCopy(value, 1);
    }
  }
  return copy;
}

/** A declared member's value as its rules see it: containers below MAX_DEPTH emptied, objects cut to MAX_COPIED_MEMBERS members. */
function boundedCopy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return Array.isArray(value) ? [] : {};
  if (Array.isArray(value)) return value.map((item) => boundedCopy(item, depth + 1));
  const copy: Record<string, unknown> = {};
  const keys = Object.keys(value);
  for (let i = 0, copied = 0; i < keys.length && copied < MAX_COPIED_MEMBERS; i++) {
    if (hides(keys[i])) continue;
    copy[keys[i]] = boundedCopy((value as Record<string, unknown>)[keys[i]], depth + 1);
    copied++;
  }
  return copy;
}

/** A key that names something inherited: class-transformer would stumble on or skip it. */
const hides = (key: string): boolean => key in Object.prototype;

/**
 * The keys inside a declared member's value that name something inherited, at any depth, refused
 * as the unknown members they are (as they always were), in the order sent; a walk rather than a
 * recursion, for a value as deep as the body limit allows.
 */
function reportHiddenKeys(root: unknown, rootPath: string, unknown: Problems): void {
  // Each path is built by concatenation, which V8 keeps as a rope: flattened only when a problem is worded.
  const pending: [value: unknown, path: string][] = [[root, rootPath]];
  while (pending.length > 0) {
    const [value, path] = pending.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i];
      const member = (value as Record<string, unknown>)[key];
      if (hides(key)) unknown.add(`${path}.${key}: unknown member`);
      else if (typeof member === 'object' && member !== null) pending.push([member, `${path}.${key}`]);
    }
  }
}

interface DtoShape {
  /** Every member a rule names (class-validator's metadata, the DTO's ancestors' included). */
  readonly declared: ReadonlySet<string>;
  readonly nested: ReadonlyMap<string | symbol, NestedType>;
  readonly asSent: ReadonlySet<string | symbol>;
}

const shapes = new WeakMap<ClassConstructor<object>, DtoShape>();

/** What validateBody needs of a DTO, read from its metadata once. */
function shapeOf(dto: ClassConstructor<object>): DtoShape {
  let shape = shapes.get(dto);
  if (shape === undefined) {
    const rules = getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false);
    const declared = new Set(rules.map((rule) => rule.propertyName).filter((name) => !hides(name)));
    shape = { declared, nested: nestedObjects(dto), asSent: new Set(keptAsSent(dto)) };
    shapes.set(dto, shape);
  }
  return shape;
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
