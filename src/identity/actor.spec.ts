import { describe, expect, it } from 'vitest';
import { actingAs, currentActor, OPERATOR, SERVICE } from './actor';

describe('the actor of the work running now', () => {
  it('is the one the work runs as, across awaits and timers', async () => {
    const seen = await actingAs({ kind: 'user', userId: 4 }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      return currentActor();
    });
    expect(seen).toEqual({ kind: 'user', userId: 4 });
  });

  it('keeps concurrent works apart', async () => {
    const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms)).then(currentActor);
    const seen = await Promise.all([actingAs(OPERATOR, () => later(5)), actingAs(SERVICE, () => later(1))]);
    expect(seen).toEqual([OPERATOR, SERVICE]);
  });

  it('is refused outside any: a change nobody made is a bug', () => {
    expect(() => currentActor()).toThrow(/no actor/);
  });
});
