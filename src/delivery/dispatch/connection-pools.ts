/**
 * The connection pools PinnedHttp keeps (docs/api.md 10.4), at most `max`, least recently used
 * first: past `max`, the least recently used pool of the organization that holds the most is
 * closed, so no organization's many host names push out another's busy pools. Pure: the caller
 * makes and closes the pools.
 */
export class ConnectionPools<P> {
  /** In order of use, the least recent first. */
  private readonly pools = new Map<string, { readonly owner: number; readonly pool: P }>();
  private readonly held = new Map<number, number>();

  constructor(private readonly max: number) {}

  /** The pool kept under `key`, now the most recently used; undefined when none is. */
  use(key: string): P | undefined {
    const entry = this.pools.get(key);
    if (entry === undefined) return undefined;
    this.pools.delete(key);
    this.pools.set(key, entry);
    return entry.pool;
  }

  /** Keeps `pool` under `key` for `owner` (an organization id); returns the pool that gives way to it, if one must. */
  add(key: string, owner: number, pool: P): P | undefined {
    this.pools.set(key, { owner, pool });
    this.held.set(owner, (this.held.get(owner) ?? 0) + 1);
    return this.pools.size > this.max ? this.evict() : undefined;
  }

  /** Every pool kept, forgotten here: the caller closes them. */
  clear(): P[] {
    const all = [...this.pools.values()].map(({ pool }) => pool);
    this.pools.clear();
    this.held.clear();
    return all;
  }

  private evict(): P {
    let greediest = -1;
    let most = 0;
    for (const [owner, count] of this.held) {
      if (count > most) [greediest, most] = [owner, count];
    }
    for (const [key, { owner, pool }] of this.pools) {
      if (owner !== greediest) continue;
      this.pools.delete(key);
      if (most === 1) this.held.delete(owner);
      else this.held.set(owner, most - 1);
      return pool;
    }
    throw new Error('ConnectionPools: an owner counted without a pool');
  }
}
