import { describe, expect, it } from 'vitest';
import { thrownBy } from '../../../test/support/unit/domain-errors';
import { MAX_BATCH_EVENT_BYTES, parseIncomingBatch } from './incoming-batch';

const badRequest = (...message: string[]) => ({ status: 400, body: { code: 'bad request', message } });
const LIST_RULE = 'events: must be a list of 1 to 100 events';
const KEY_RULE = 'must be 1 to 255 visible ASCII characters';

const event = (organization: number, idempotencyKey?: string) => ({
  type: 'user.updated',
  organization,
  data: { user: 1 },
  ...(idempotencyKey !== undefined && { idempotencyKey }),
});

describe('parseIncomingBatch (docs/api.md 10.1.1)', () => {
  it('returns the events in the order sent, each with its data as sent and its key', () => {
    const data = JSON.parse('{"constructor":{"name":"x"},"toString":1}');
    const events = parseIncomingBatch({ events: [{ ...event(7, 'k-1'), data }, event(8)] });
    expect(events).toEqual([{ ...event(7, 'k-1'), data }, event(8)]);
    expect(events[0].data).toBe(data);
    expect(events[1]).not.toHaveProperty('idempotencyKey');
  });

  it.each([
    ['no events member', {}, [LIST_RULE]],
    ['no event', { events: [] }, [LIST_RULE]],
    ['101 events', { events: Array.from({ length: 101 }, () => event(1)) }, [LIST_RULE]],
    ['events that are not a list', { events: { 0: event(1) } }, [LIST_RULE]],
    ['a member beside events', { events: [event(1)], organization: 1 }, ['organization: unknown member']],
  ])('refuses %s', (_, body, message) => {
    expect(thrownBy(() => parseIncomingBatch(body))).toEqual(badRequest(...message));
  });

  it('takes 100 events', () => {
    expect(parseIncomingBatch({ events: Array.from({ length: 100 }, () => event(1)) })).toHaveLength(100);
  });

  it('names every problem of every event by its index, with the rules of POST /events and its Idempotency-Key', () => {
    const events = Array.from({ length: 60 }, (_, i) => event(1, `k-${i}`));
    events[3] = { ...events[3], type: 'card.deleted' };
    events[57] = JSON.parse('{"type":"user.updated","organization":0,"data":[],"idempotencyKey":"with space","__proto__":{}}');
    expect(thrownBy(() => parseIncomingBatch({ events: [...events, 'not an event'] }))).toEqual(
      badRequest(
        'events[3].type: must be one of transaction.created, transaction.updated, transaction.completed, card.updated, user.updated',
        'events[57].__proto__: unknown member',
        `events[57].idempotencyKey: ${KEY_RULE}`,
        'events[57].organization: must be a positive integer',
        'events[57].data: must be a JSON object',
        'events[60]: must be a JSON object',
      ),
    );
  });

  it('refuses a key used twice for one organization, naming each later use, and takes it for two organizations', () => {
    expect(
      thrownBy(() => parseIncomingBatch({ events: [event(1, 'k'), event(2, 'k'), event(1, 'k'), event(1, 'K'), event(1, 'k')] })),
    ).toEqual(
      badRequest(
        'events[2].idempotencyKey: used by events[0] too, for the same organization',
        'events[4].idempotencyKey: used by events[0] too, for the same organization',
      ),
    );
    expect(parseIncomingBatch({ events: [event(1, 'k'), event(2, 'k'), event(1, 'K')] })).toHaveLength(3);
  });

  it('names a repeated key beside the other shape problems, by its index in the batch', () => {
    expect(thrownBy(() => parseIncomingBatch({ events: [{ ...event(1), data: 1 }, event(1, 'k'), event(1, 'k')] }))).toEqual(
      badRequest('events[0].data: must be a JSON object', 'events[2].idempotencyKey: used by events[1] too, for the same organization'),
    );
  });

  it('refuses data nested deeper than the stack would allow with 400, not 500: an event is measured only once it is valid', () => {
    const deep = `{"type":"user.updated","organization":1,"data":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
    expect(thrownBy(() => parseIncomingBatch({ events: [JSON.parse(deep)] }))).toEqual(
      badRequest('events[0].data: must be at most 32 levels deep'),
    );
  });

  it('answers 413 payload too large naming each event over 256 KiB of JSON, once the batch is valid', () => {
    const filler = (bytes: number) => ({ ...event(1), data: { blob: 'x'.repeat(bytes) } });
    const overhead = Buffer.byteLength(JSON.stringify(filler(0)));
    const atLimit = filler(MAX_BATCH_EVENT_BYTES - overhead);
    const over = filler(MAX_BATCH_EVENT_BYTES - overhead + 1);
    expect(parseIncomingBatch({ events: [atLimit] })).toHaveLength(1);
    expect(thrownBy(() => parseIncomingBatch({ events: [event(1), over, atLimit, over] }))).toEqual({
      status: 413,
      body: {
        code: 'payload too large',
        message: ['events[1]: must be at most 256 KiB of JSON', 'events[3]: must be at most 256 KiB of JSON'],
      },
    });
    expect(thrownBy(() => parseIncomingBatch({ events: [over, { ...event(1), type: 'x' }] })).status).toBe(400);
  });

  it('lists the first 20 problems of a batch of 125 000 unknown members, then how many more (docs/api.md 7)', () => {
    const members = (i: number) => Object.fromEntries(Array.from({ length: 1_250 }, (_, k) => [`m${k}`, i]));
    const batch = { events: Array.from({ length: 100 }, (_, i) => ({ ...event(1), ...members(i) })) };
    const { status, body } = thrownBy(() => parseIncomingBatch(batch));
    expect(status).toBe(400);
    const { message } = body as { message: string[] };
    expect(message).toHaveLength(21);
    expect(message.slice(0, 2)).toEqual(['events[0].m0: unknown member', 'events[0].m1: unknown member']);
    expect(message[20]).toBe('… and 124980 more');
  });
});
