import { describe, expect, it } from 'vitest';
import { derivedTrace } from './event-trace';

describe('derivedTrace (docs/api.md 10.17)', () => {
  it('derives the same trace from an event id on every read, another for another id', () => {
    expect(derivedTrace('evt_1')).toEqual(derivedTrace('evt_1'));
    expect(derivedTrace('evt_1')).toEqual({
      traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(derivedTrace('evt_2').traceId).not.toBe(derivedTrace('evt_1').traceId);
  });
});
