import { describe, expect, it } from 'vitest';
import { actorOf } from './actor';

describe('actorOf', () => {
  it("is a console request's user", () => {
    expect(actorOf({ userId: 4 })).toEqual({ kind: 'user', userId: 4 });
  });
});
