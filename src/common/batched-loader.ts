interface Asked<V> {
  readonly resolve: (value: V | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Reads by key, many at a time: the keys asked while one read is on its way go together into
 * the next, one read at a time (as DataLoader does, but with no wait of its own: an idle loader
 * reads at once). A busy caller makes one read for many keys instead of one each.
 */
export class BatchedLoader<K, V> {
  private waiting = new Map<K, Asked<V>[]>();
  private reading = false;

  constructor(private readonly read: (keys: readonly K[]) => Promise<Map<K, V>>) {}

  /** The value for `key`, or undefined when the read found none. */
  load(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const asked = this.waiting.get(key) ?? [];
      asked.push({ resolve, reject });
      this.waiting.set(key, asked);
      if (!this.reading) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.reading = true;
    try {
      while (this.waiting.size > 0) {
        const batch = this.waiting;
        this.waiting = new Map();
        try {
          const found = await this.read([...batch.keys()]);
          for (const [key, asked] of batch) for (const { resolve } of asked) resolve(found.get(key));
        } catch (error) {
          for (const asked of batch.values()) for (const { reject } of asked) reject(error);
        }
      }
    } finally {
      this.reading = false;
    }
  }
}
