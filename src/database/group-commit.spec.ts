import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit';

const LIMITS = { maxItems: 3, maxBytes: 100, bytesOf: (item: number) => item };

describe('GroupCommit', () => {
  it('writes a lone item at once, alone', async () => {
    const groups: number[][] = [];
    const sut = new GroupCommit(async (items: readonly number[]) => (groups.push([...items]), items.map((i) => i * 2)), LIMITS);
    expect(await sut.submit(5)).toBe(10);
    expect(groups).toEqual([[5]]);
  });

  it('gathers what arrives while a group is written into the next group, up to its item limit', async () => {
    const groups: number[][] = [];
    const sut = new GroupCommit(async (items: readonly number[]) => (groups.push([...items]), [...items]), LIMITS);
    await Promise.all([1, 2, 3, 4, 5].map((n) => sut.submit(n)));
    expect(groups).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('closes a group before its bytes would pass the limit, but writes one large item alone', async () => {
    const groups: number[][] = [];
    const sut = new GroupCommit(async (items: readonly number[]) => (groups.push([...items]), [...items]), LIMITS);
    await Promise.all([1, 60, 50, 500].map((n) => sut.submit(n)));
    expect(groups).toEqual([[1], [60], [50], [500]]);
  });

  it('counts an item as countOf says: one that counts more than the limit goes alone', async () => {
    const groups: number[][] = [];
    const limits = { ...LIMITS, countOf: (item: number) => item };
    const sut = new GroupCommit(async (items: readonly number[]) => (groups.push([...items]), [...items]), limits);
    await Promise.all([1, 1, 2, 5, 1].map((n) => sut.submit(n)));
    expect(groups).toEqual([[1], [1, 2], [5], [1]]);
  });

  it('writes each item of a failed group again alone, so that only the one at fault fails', async () => {
    const sut = new GroupCommit(async (items: readonly number[]) => {
      if (items.includes(3)) throw new Error('duplicate');
      return [...items];
    }, LIMITS);
    const results = await Promise.allSettled([1, 2, 3, 4].map((n) => sut.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  });
});
