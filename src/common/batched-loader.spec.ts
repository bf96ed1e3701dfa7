import { describe, expect, it } from 'vitest';
import { BatchedLoader } from './batched-loader';

describe('BatchedLoader', () => {
  it('reads a lone key at once', async () => {
    const reads: number[][] = [];
    const sut = new BatchedLoader(async (keys: readonly number[]) => (reads.push([...keys]), new Map(keys.map((k) => [k, k * 10]))));
    expect(await sut.load(1)).toBe(10);
    expect(reads).toEqual([[1]]);
  });

  it('reads the keys asked while a read is on its way together, once each', async () => {
    const reads: number[][] = [];
    const sut = new BatchedLoader(async (keys: readonly number[]) => (reads.push([...keys]), new Map(keys.map((k) => [k, k]))));
    expect(await Promise.all([1, 2, 3, 2].map((k) => sut.load(k)))).toEqual([1, 2, 3, 2]);
    expect(reads).toEqual([[1], [2, 3]]);
  });

  it('answers undefined for a key the read did not find', async () => {
    const sut = new BatchedLoader(async () => new Map<number, number>());
    expect(await sut.load(7)).toBeUndefined();
  });

  it('fails every key of a read that fails, and reads again for the next', async () => {
    let fail = true;
    const sut = new BatchedLoader(async (keys: readonly number[]) => {
      if (fail) throw new Error('down');
      return new Map(keys.map((k) => [k, k]));
    });
    await expect(sut.load(1)).rejects.toThrow('down');
    fail = false;
    expect(await sut.load(1)).toBe(1);
  });
});
