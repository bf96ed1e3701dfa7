import { describe, expect, it } from 'vitest';
import { ConnectionPools } from './connection-pools';

/* docs/api.md 10.4: the pools PinnedHttp keeps, least recently used first and no organization past its share. */

describe('ConnectionPools', () => {
  it('gives back the pool kept under a key, and nothing for another', () => {
    const pools = new ConnectionPools<string>(2);
    pools.add('a', 1, 'pool a');
    expect([pools.use('a'), pools.use('b')]).toEqual(['pool a', undefined]);
  });

  it('closes the least recently used pool past its bound, not the first one made', () => {
    const pools = new ConnectionPools<string>(2);
    pools.add('a', 1, 'pool a');
    pools.add('b', 1, 'pool b');
    pools.use('a');
    expect(pools.add('c', 1, 'pool c')).toBe('pool b');
    expect([pools.use('a'), pools.use('b'), pools.use('c')]).toEqual(['pool a', undefined, 'pool c']);
  });

  it("closes a pool of the organization holding the most, however recently another organization's was used", () => {
    const pools = new ConnectionPools<string>(4);
    pools.add('busy', 1, 'busy');
    for (const host of ['x', 'y', 'z']) pools.add(host, 2, host);
    expect(pools.add('w', 2, 'w')).toBe('x');
    expect(pools.add('v', 2, 'v')).toBe('y');
    expect(pools.use('busy')).toBe('busy');
  });

  it('keeps the busiest pool while one organization goes through 300 host names', () => {
    const pools = new ConnectionPools<string>(256);
    pools.add('busy', 1, 'busy');
    const closed: string[] = [];
    for (let host = 0; host < 300; host++) {
      const evicted = pools.add(`host-${host}`, 2, `host-${host}`);
      if (evicted !== undefined) closed.push(evicted);
    }
    expect(closed).toHaveLength(45);
    expect(closed).not.toContain('busy');
    expect(pools.use('busy')).toBe('busy');
  });

  it('hands every kept pool back once on clear, and keeps none', () => {
    const pools = new ConnectionPools<string>(4);
    pools.add('a', 1, 'pool a');
    pools.add('b', 2, 'pool b');
    expect(pools.clear()).toEqual(['pool a', 'pool b']);
    expect(pools.use('a')).toBeUndefined();
  });
});
