import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/unit/domain-errors';
import { MAX_DATA_DEPTH } from './dto/event.dto';
import { idempotencyKeyOf, parseIncomingEvent } from './incoming-event';

const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const TYPE_RULE = 'type: must be one of transaction.created, transaction.updated, transaction.completed, card.updated, user.updated';

/** `data` nested `levels` deep, counting itself: {"a":{"a":…{}}}. */
const nested = (levels: number): Record<string, unknown> => {
  let data: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) data = { a: data };
  return data;
};

describe('parseIncomingEvent (docs/api.md 10.1)', () => {
  it('returns the event with data as sent, keys such as constructor and __proto__ included', () => {
    const data = JSON.parse('{"constructor":{"name":"x"},"__proto__":{"admin":true},"toString":1,"list":[1,{"b":null}]}');
    const event = parseIncomingEvent({ type: 'transaction.created', organization: 7, data });
    expect(event).toEqual({ type: 'transaction.created', organization: 7, data });
    expect(event.data).toBe(data);
  });

  it.each(['transaction.created', 'transaction.updated', 'transaction.completed', 'card.updated', 'user.updated'])(
    'accepts the type %s',
    (type) => {
      expect(parseIncomingEvent({ type, organization: 1, data: {} }).type).toBe(type);
    },
  );

  it.each([
    ['an array', [1, 2]],
    ['null', null],
    ['a string', 'event'],
  ])('refuses a body that is %s', (_, body) => {
    expect(thrownBy(() => parseIncomingEvent(body))).toEqual(badRequest('body: must be a JSON object'));
  });

  it('reads no body as {}, naming every member it lacks', () => {
    expect(thrownBy(() => parseIncomingEvent(undefined))).toEqual(
      badRequest(TYPE_RULE, 'organization: must be a positive integer', 'data: must be a JSON object'),
    );
  });

  it('refuses a key every object inherits as the unknown member it is, beside a valid event', () => {
    const body: unknown = JSON.parse('{"toString":1,"__proto__":{},"type":"user.updated","organization":1,"data":{}}');
    expect(thrownBy(() => parseIncomingEvent(body))).toEqual(badRequest('toString: unknown member', '__proto__: unknown member'));
  });

  it.each([
    ['an unknown type', { type: 'card.deleted', organization: 1, data: {} }, TYPE_RULE],
    ['the test event of the service its own', { type: 'webhook.test', organization: 1, data: {} }, TYPE_RULE],
    ['the disabled event of the service its own', { type: 'webhook.disabled', organization: 1, data: { webhook: 'a' } }, TYPE_RULE],
    ['no type', { organization: 1, data: {} }, TYPE_RULE],
    ['a string organization', { type: 'user.updated', organization: '1', data: {} }, 'organization: must be a positive integer'],
    ['organization 0', { type: 'user.updated', organization: 0, data: {} }, 'organization: must be a positive integer'],
    ['a fractional organization', { type: 'user.updated', organization: 1.5, data: {} }, 'organization: must be a positive integer'],
    ['an organization past 2^53', { type: 'user.updated', organization: 2 ** 53, data: {} }, 'organization: must be a positive integer'],
    ['data that is an array', { type: 'user.updated', organization: 1, data: [] }, 'data: must be a JSON object'],
    ['data that is null', { type: 'user.updated', organization: 1, data: null }, 'data: must be a JSON object'],
    ['no data', { type: 'user.updated', organization: 1 }, 'data: must be a JSON object'],
    ['an unknown member', { type: 'user.updated', organization: 1, data: {}, extra: true }, 'extra: unknown member'],
  ])('refuses %s with 400 bad request naming it', (_, body, problem) => {
    expect(thrownBy(() => parseIncomingEvent(body))).toEqual(badRequest(problem));
  });

  it('names every problem at once, unknown members first', () => {
    expect(thrownBy(() => parseIncomingEvent({ kind: 'x', type: 'x', organization: -1, data: 1 }))).toEqual(
      badRequest('kind: unknown member', TYPE_RULE, 'organization: must be a positive integer', 'data: must be a JSON object'),
    );
  });

  it(`accepts data ${MAX_DATA_DEPTH} levels deep and refuses one more, arrays counted as levels`, () => {
    expect(parseIncomingEvent({ type: 'user.updated', organization: 1, data: nested(MAX_DATA_DEPTH) }).data).toEqual(
      nested(MAX_DATA_DEPTH),
    );
    const tooDeep = badRequest(`data: must be at most ${MAX_DATA_DEPTH} levels deep`);
    expect(thrownBy(() => parseIncomingEvent({ type: 'user.updated', organization: 1, data: nested(MAX_DATA_DEPTH + 1) }))).toEqual(
      tooDeep,
    );
    expect(
      thrownBy(() => parseIncomingEvent({ type: 'user.updated', organization: 1, data: { a: [nested(MAX_DATA_DEPTH - 1)] } })),
    ).toEqual(tooDeep);
  });
});

describe('idempotencyKeyOf (docs/api.md 10.1)', () => {
  it('passes an absent key', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
  });

  it.each([
    ['one character', 'k'],
    ['255 characters', 'k'.repeat(255)],
    ['every visible ASCII character', '!~az-_.:/#"'],
  ])('returns %s as given', (_, key) => {
    expect(idempotencyKeyOf(key)).toBe(key);
  });

  it.each([
    ['an empty key', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space', 'order 1'],
    ['a tab', 'order\t1'],
    ['a non-ASCII letter', 'café'],
    ['a control character', 'a\x7f'],
  ])('refuses %s with 400 bad request', (_, key) => {
    expect(thrownBy(() => idempotencyKeyOf(key))).toEqual(badRequest('Idempotency-Key: must be 1 to 255 visible ASCII characters'));
  });
});
