import { IsInt, IsString } from 'class-validator';
import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/unit/domain-errors';
import { Errors } from '../domain-error';
import { validateBody, validateParameters } from './validate-input';
import { answeredWith, JsonObjectAsSent, NestedObject, Optional, Required } from './validation.decorators';

// The engine's own rules, on small DTOs of its building blocks; the features' DTOs have specs of their own.

class GroupDto {
  @Optional() @IsString({ message: 'must be a string' }) first?: string;
}

class ThingDto {
  @IsString(answeredWith(Errors.invalidName, 'must be a string')) @Required(answeredWith(Errors.invalidName)) label: string;
  @Optional() @IsInt({ message: 'must be a whole number' }) count?: number;
  @Optional() @NestedObject(() => GroupDto) group?: GroupDto;
}

class PayloadDto {
  @Required() @IsString({ message: 'must be a string' }) kind: string;
  @JsonObjectAsSent({ maxDepth: 4 }) payload: Record<string, unknown>;
}

class IdDto {
  @IsInt(answeredWith(() => Errors.notFound())) id: number;
}

const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const invalidName = (...message: string[]) => ({ status: 400, body: { code: 'invalid name', message } });

/** `{"<key>":[[…]]}`, `levels` arrays deep. */
const deep = (key: string, levels: number): unknown => JSON.parse(`{"${key}":${'['.repeat(levels)}${']'.repeat(levels)}}`);

describe('validateBody', () => {
  it('returns the DTO instance of a valid body', () => {
    const thing = validateBody(ThingDto, { label: 'a', count: 2, group: { first: 'x' } });
    expect(thing).toBeInstanceOf(ThingDto);
    expect(thing.group).toBeInstanceOf(GroupDto);
    expect(thing).toMatchObject({ label: 'a', count: 2, group: { first: 'x' } });
  });

  it.each([
    ['an array', [{ label: 'a' }]],
    ['a string', 'a'],
    ['null', null],
    ['a number', 1],
  ])('refuses a body that is %s', (_, body) => {
    expect(thrownBy(() => validateBody(ThingDto, body))).toEqual(badRequest('body: must be a JSON object'));
  });

  it('reads no body as {}', () => {
    expect(thrownBy(() => validateBody(ThingDto, undefined))).toEqual(invalidName('label: is required'));
  });

  it('names every unknown member, at any depth', () => {
    expect(thrownBy(() => validateBody(ThingDto, { label: 'a', extra: 1, group: { second: 'y' } }))).toEqual(
      badRequest('extra: unknown member', 'group.second: unknown member'),
    );
  });

  it('names each shape problem by its path, the first broken rule of each member only', () => {
    expect(thrownBy(() => validateBody(ThingDto, { label: 'a', count: 'x', group: { first: 5 } }))).toEqual(
      badRequest('count: must be a whole number', 'group.first: must be a string'),
    );
  });

  it('answers a rule answeredWith its own error before any shape problem, naming only its own problems', () => {
    expect(thrownBy(() => validateBody(ThingDto, { label: 5, count: 'x', extra: 1 }))).toEqual(invalidName('label: must be a string'));
  });

  it('refuses keys class-transformer would hide (inherited ones) as unknown members, in the order sent', () => {
    const body: unknown = JSON.parse('{"label":"a","toString":1,"group":{"constructor":{},"__proto__":{"polluted":true}}}');
    expect(thrownBy(() => validateBody(ThingDto, body))).toEqual(
      badRequest('toString: unknown member', 'group.constructor: unknown member', 'group.__proto__: unknown member'),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers a rule answeredWith its own error before a key class-transformer would hide', () => {
    expect(thrownBy(() => validateBody(ThingDto, JSON.parse('{"toString":1}')))).toEqual(invalidName('label: is required'));
  });

  it('names a member nested deeper than the stack would allow, without overflowing it', () => {
    expect(thrownBy(() => validateBody(ThingDto, { label: 'a', ...(deep('count', 100_000) as object) }))).toEqual(
      badRequest('count: must be a whole number'),
    );
  });

  it('names the problems of a body inside another from where it is (a batch: events[3])', () => {
    expect(thrownBy(() => validateBody(ThingDto, 'a', 'events[3]'))).toEqual(badRequest('events[3]: must be a JSON object'));
    const body: unknown = JSON.parse('{"label":"a","count":"x","toString":1,"group":{"first":5}}');
    expect(thrownBy(() => validateBody(ThingDto, body, 'events[3]'))).toEqual(
      badRequest(
        'events[3].toString: unknown member',
        'events[3].count: must be a whole number',
        'events[3].group.first: must be a string',
      ),
    );
  });

  it('refuses 100 000 unknown members with the first 20 named, then how many more (docs/api.md 7)', () => {
    const members = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`m${i}`, i]));
    expect(thrownBy(() => validateBody(ThingDto, { label: 'a', ...members }))).toEqual(
      badRequest(...Array.from({ length: 20 }, (_, i) => `m${i}: unknown member`), '… and 99980 more'),
    );
  });

  it('refuses the unknown members of a nested object by their path, before the shape problems', () => {
    const group = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`m${i}`, i]));
    expect(thrownBy(() => validateBody(ThingDto, { label: 'a', count: 'x', group: { first: 1, ...group } }))).toEqual(
      badRequest(
        'group.m0: unknown member',
        'group.m1: unknown member',
        'group.m2: unknown member',
        'count: must be a whole number',
        'group.first: must be a string',
      ),
    );
  });

  it('counts the problems of a nested object of 100 000 members, the first 20 named', () => {
    const group = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`m${i}`, i]));
    const { body } = thrownBy(() => validateBody(ThingDto, { label: 'a', count: 'x', group: { first: 1, ...group } }));
    expect((body as { message: string[] }).message.slice(-2)).toEqual(['group.m19: unknown member', '… and 99982 more']);
  });

  it("words a declared member's problem as before when its value is an object of 100 000 members", () => {
    const wide = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`m${i}`, i]));
    expect(thrownBy(() => validateBody(ThingDto, { label: 'a', count: wide }))).toEqual(badRequest('count: must be a whole number'));
  });

  it('sets a member KeptAsSent as sent, the same object with every key', () => {
    const payload = JSON.parse('{"constructor":{"name":"x"},"__proto__":{"admin":true},"toString":1}');
    expect(validateBody(PayloadDto, { kind: 'k', payload }).payload).toBe(payload);
  });

  it('checks a member KeptAsSent with its own rules, however deep it is', () => {
    expect(thrownBy(() => validateBody(PayloadDto, { kind: 'k', ...(deep('payload', 100_000) as object) }))).toEqual(
      badRequest('payload: must be a JSON object'),
    );
    expect(thrownBy(() => validateBody(PayloadDto, { kind: 'k', payload: { a: [[[{}]]] } }))).toEqual(
      badRequest('payload: must be at most 4 levels deep'),
    );
  });
});

describe('validateParameters', () => {
  it('drops parameters the DTO does not declare, inherited names included', () => {
    expect({ ...validateParameters(IdDto, JSON.parse('{"id":7,"other":"x","__proto__":"y","toString":"z"}')) }).toEqual({ id: 7 });
  });

  it('answers a rule answeredWith its own error, which may carry no message', () => {
    expect(thrownBy(() => validateParameters(IdDto, { id: 'x' }))).toEqual({ status: 404, body: { code: 'not found' } });
  });
});
