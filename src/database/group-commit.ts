interface Waiting<I, R> {
  readonly item: I;
  readonly resolve: (result: R) => void;
  readonly reject: (error: unknown) => void;
}

export interface GroupLimits<I> {
  /** A group's items together, by `countOf` (1 each by default); one item counting more goes alone. */
  readonly maxItems: number;
  readonly countOf?: (item: I) => number;
  /** A group's items together, by `bytesOf`; one item larger than this goes alone. */
  readonly maxBytes: number;
  readonly bytesOf: (item: I) => number;
}

/**
 * Group commit: writes submitted while one group is being written go together into the next,
 * one transaction for all of them (docs/performance.md: one round trip and one log flush for
 * many). An idle writer writes a lone item at once, so a quiet service waits for nothing. When
 * a group fails, each of its items is written again alone, so that the one at fault (a
 * duplicate key, an unknown parent) fails alone and the others are written.
 */
export class GroupCommit<I, R> {
  private readonly waiting: Waiting<I, R>[] = [];
  private writing = false;

  constructor(
    /** Writes items in one transaction: a result for each, in order. */
    private readonly write: (items: readonly I[]) => Promise<R[]>,
    private readonly limits: GroupLimits<I>,
  ) {}

  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.writing) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.writing = true;
    try {
      while (this.waiting.length > 0) await this.writeGroup(this.nextGroup());
    } finally {
      this.writing = false;
    }
  }

  private nextGroup(): Waiting<I, R>[] {
    const { maxItems, countOf = () => 1, maxBytes, bytesOf } = this.limits;
    let items = 0;
    let bytes = 0;
    let count = 0;
    while (count < this.waiting.length) {
      const { item } = this.waiting[count];
      if (count > 0 && (items + countOf(item) > maxItems || bytes + bytesOf(item) > maxBytes)) break;
      items += countOf(item);
      bytes += bytesOf(item);
      count++;
    }
    return this.waiting.splice(0, count);
  }

  private async writeGroup(group: readonly Waiting<I, R>[]): Promise<void> {
    try {
      const results = await this.write(group.map(({ item }) => item));
      group.forEach((waiting, i) => waiting.resolve(results[i]));
    } catch (error) {
      if (group.length === 1) return group[0].reject(error);
      for (const waiting of group) await this.writeGroup([waiting]);
    }
  }
}
