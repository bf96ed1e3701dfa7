import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readUpTo } from './read-up-to';

/** A body sent in chunks of these sizes. */
const body = (...sizes: number[]) => Readable.from(sizes.map((size) => Buffer.alloc(size, 'a')));

describe('readUpTo', () => {
  it('returns every byte of a body exactly at the limit', async () => {
    expect((await readUpTo(body(40_000, 25_536), 65_536))?.length).toBe(65_536);
  });

  it('returns nothing for a body one byte past the limit, and drops it unread', async () => {
    const stream = body(40_000, 25_537, 10);
    expect(await readUpTo(stream, 65_536)).toBeUndefined();
    expect(stream.destroyed).toBe(true);
  });

  it('returns an empty body as empty bytes, not as nothing', async () => {
    expect(await readUpTo(body(), 10)).toEqual(Buffer.alloc(0));
  });
});
