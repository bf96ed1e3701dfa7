/*
 * The checks the simulator makes of a request body, member by member, as the processors'
 * references state them (docs/decisions.md cites them): each rule names what is wrong, or
 * undefined.
 */

export type Rule = (value: unknown) => string | undefined;

/** A simulated processor's answer: its status and JSON body, sent after `delayMs` when given. */
export interface SimulatedAnswer {
  readonly status: number;
  readonly body: object;
  readonly delayMs?: number;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;

export const text =
  (min: number, max: number): Rule =>
  (value) =>
    typeof value === 'string' && value.length >= min && value.length <= max ? undefined : `must be a string of ${min} to ${max} characters`;

export const oneOf =
  (choices: readonly string[]): Rule =>
  (value) =>
    typeof value === 'string' && choices.includes(value) ? undefined : `must be one of ${choices.join(', ')}`;

export const base64: Rule = (value) => (typeof value === 'string' && BASE64.test(value) ? undefined : 'must be base64');

/** One or more base64 strings (Apple's certificate chain, the leaf first). */
export const base64List: Rule = (value) =>
  Array.isArray(value) && value.length > 0 && value.every((item) => base64(item) === undefined)
    ? undefined
    : 'must be an array of one or more base64 certificates';

/** Absent, or as `rule` says. */
export const optional =
  (rule: Rule): Rule =>
  (value) =>
    value === undefined ? undefined : rule(value);

/** Every broken rule of `body` (a JSON object) as `member: problem`; a member the rules do not name is ignored, as the processors do. */
export function problemsOf(body: unknown, rules: Readonly<Record<string, Rule>>): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return ['body: must be a JSON object'];
  const members = body as Record<string, unknown>;
  return Object.entries(rules).flatMap(([name, rule]) => {
    const problem = rule(members[name]);
    return problem === undefined ? [] : [`${name}: ${problem}`];
  });
}

/** A member of a body that passed its rules. */
export const member = (body: unknown, name: string): string => (body as Record<string, string>)[name];
