import { describe, expect, it } from 'vitest';
import { EventBodies } from './event-bodies';

describe('EventBodies', () => {
  it('holds an event body once however many deliveries take it', () => {
    const sut = new EventBodies(1000);
    for (let i = 0; i < 100; i++) sut.take('evt_a', 400);
    expect(sut.bytes).toBe(400);
  });

  it('lets a body go with the last delivery that holds it', () => {
    const sut = new EventBodies(1000);
    sut.take('evt_a', 400);
    sut.take('evt_a', 400);
    sut.drop('evt_a');
    expect(sut.bytes).toBe(400);
    sut.drop('evt_a');
    expect([sut.bytes, sut.get('evt_a')]).toEqual([0, undefined]);
  });

  it('takes no new body past the budget, but always one held already', () => {
    const sut = new EventBodies(1000);
    sut.take('evt_a', 800);
    expect([sut.fits('evt_b', 300), sut.fits('evt_a', 800), sut.fits('evt_c', 200)]).toEqual([false, true, true]);
  });

  it('takes a body larger than the whole budget when it holds nothing else, so that no event is stuck', () => {
    expect(new EventBodies(1000).fits('evt_big', 5000)).toBe(true);
  });

  it('keeps the body given for a held event, and what came with it, until it is let go', () => {
    const sut = new EventBodies<string>(1000);
    sut.take('evt_a', 3);
    expect(sut.missing('evt_a')).toBe(true);
    sut.put('evt_a', Buffer.from('abc'), 'its trace');
    expect([sut.missing('evt_a'), sut.get('evt_a')?.toString(), sut.about('evt_a')]).toEqual([false, 'abc', 'its trace']);
    sut.drop('evt_a');
    expect([sut.get('evt_a'), sut.about('evt_a')]).toEqual([undefined, undefined]);
  });

  it("chooses a claim's new bodies within the budget, and counts them as used until the claim ends", () => {
    const sut = new EventBodies(1000);
    sut.take('evt_a', 300);
    const wanted = [
      { eventId: 'evt_a', bodyBytes: 300 },
      { eventId: 'evt_b', bodyBytes: 500 },
      { eventId: 'evt_c', bodyBytes: 400 },
    ];
    expect(sut.reserve(wanted).map(({ eventId }) => eventId)).toEqual(['evt_a', 'evt_b']);
    expect(sut.fits('evt_d', 300)).toBe(false); // a hand-off meanwhile: 300 held and 500 set aside
    sut.unreserve();
    expect(sut.fits('evt_d', 300)).toBe(true);
  });

  it('replaces a reservation asked again by the same claim (its transaction run again)', () => {
    const sut = new EventBodies(1000);
    sut.reserve([{ eventId: 'evt_a', bodyBytes: 600 }]);
    expect(sut.reserve([{ eventId: 'evt_b', bodyBytes: 700 }]).map(({ eventId }) => eventId)).toEqual(['evt_b']);
    expect(sut.fits('evt_c', 400)).toBe(false);
    expect(sut.fits('evt_c', 300)).toBe(true);
  });
});
