import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { newSpanId, newTraceId, parseTraceparent, parseTracestate, producerContextOf, traceHeadersOf } from './trace-context';

// randomBytes as Node's, unless a test makes it answer zeros first.
vi.mock('node:crypto', async (original) => {
  const actual = await original<typeof import('node:crypto')>();
  return { ...actual, randomBytes: vi.fn(actual.randomBytes) };
});

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';

describe('parseTraceparent (W3C Trace Context)', () => {
  it('reads version 00: the trace, the parent span and the sampled flag', () => {
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-01`)).toEqual({ traceId: TRACE, parentId: PARENT, sampled: true });
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-00`)?.sampled).toBe(false);
  });

  it("reads a later version by version 00's fields, with anything after them", () => {
    expect(parseTraceparent(`cc-${TRACE}-${PARENT}-01-what-the-future-holds`)).toMatchObject({ traceId: TRACE });
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['version ff', `ff-${TRACE}-${PARENT}-01`],
    ['a trace id of zeros', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['a parent id of zeros', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['upper case', `00-${TRACE.toUpperCase()}-${PARENT}-01`],
    ['a short trace id', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['version 00 with more after the flags', `00-${TRACE}-${PARENT}-01-extra`],
    ['not hex', `00-${TRACE.replace('4', 'g')}-${PARENT}-01`],
    ['twice', [`00-${TRACE}-${PARENT}-01`, `00-${TRACE}-${PARENT}-01`]],
  ])('ignores a traceparent %s', (_, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe('parseTracestate', () => {
  it('keeps a well-formed list as received', () => {
    expect(parseTracestate('congo=t61rcWkgMzE,rojo=00f067aa0ba902b7, tenant@vendor=x')).toBe(
      'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7, tenant@vendor=x',
    );
  });

  it('joins repeated headers, as one list', () => {
    expect(parseTracestate(['a=1', 'b=2'])).toBe('a=1,b=2');
  });

  it.each([
    ['longer than 512 characters', `a=${'x'.repeat(511)}`],
    ['a member without =', 'congo'],
    ['an upper-case key', 'Congo=1'],
    ['more than 32 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
    ['empty', ''],
  ])('drops a tracestate %s', (_, header) => {
    expect(parseTracestate(header)).toBeUndefined();
  });
});

describe('producerContextOf (docs/api.md 10.17)', () => {
  it("takes the producer's span as the parent, and its tracestate", () => {
    expect(producerContextOf(`00-${TRACE}-${PARENT}-01`, 'congo=1')).toEqual({ traceId: TRACE, spanId: PARENT, traceState: 'congo=1' });
  });

  it('gives no context for a malformed traceparent (a new trace), and drops its tracestate', () => {
    expect(producerContextOf('00-nonsense', 'congo=1')).toBeUndefined();
  });
});

describe('ids and the attempt header', () => {
  it('makes ids of the right length', () => {
    expect(newTraceId()).toMatch(/^[0-9a-f]{32}$/);
    expect(newSpanId()).toMatch(/^[0-9a-f]{16}$/);
  });

  it('never makes an all-zero id (W3C: invalid), drawing again instead', () => {
    const randomBytes = vi.mocked(crypto.randomBytes) as unknown as { mockReturnValueOnce(value: Buffer): unknown };
    randomBytes.mockReturnValueOnce(Buffer.alloc(16));
    expect(newTraceId()).not.toBe('0'.repeat(32));
    randomBytes.mockReturnValueOnce(Buffer.alloc(8));
    expect(newSpanId()).not.toBe('0'.repeat(16));
  });

  it("writes an attempt's traceparent: the event's trace, the attempt's span, sampled, and it reads back", () => {
    const { traceparent } = traceHeadersOf({ traceId: TRACE, spanId: PARENT });
    expect(traceparent).toBe(`00-${TRACE}-${PARENT}-01`);
    expect(parseTraceparent(traceparent)).toEqual({ traceId: TRACE, parentId: PARENT, sampled: true });
  });

  it('writes the tracestate as received beside it, and none when there is none', () => {
    expect(traceHeadersOf({ traceId: TRACE, spanId: PARENT, traceState: 'congo=1' })).toEqual({
      traceparent: `00-${TRACE}-${PARENT}-01`,
      tracestate: 'congo=1',
    });
    expect(traceHeadersOf({ traceId: TRACE, spanId: PARENT })).not.toHaveProperty('tracestate');
  });
});
