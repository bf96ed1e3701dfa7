/** Outcomes recorded in one transaction at most. */
const MAX_BATCH = 256;
const RETRY_MS = 500;

interface PendingRecord<I, R> {
  readonly item: I;
  readonly giveUpAt: number;
  readonly resolve: (result: R | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Records attempts' outcomes in batches (docs/performance.md): one transaction at a time, and
 * every outcome that arrives meanwhile goes into the next, so a busy dispatcher writes many per
 * transaction and an idle one writes each at once. While the database cannot be written (it is
 * cut off), a batch is tried again until a claim's lease would end, so that an attempt made
 * just before an outage is not made again after it; once closed, it is tried once more only.
 */
export class AttemptRecorder<I extends { readonly id: number }, R> {
  private readonly pending: PendingRecord<I, R>[] = [];
  private draining = false;
  private scheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    /** Writes a batch: what it says of each item it recorded, by id (the others' claims were lost). */
    private readonly complete: (batch: readonly I[]) => Promise<Map<number, R>>,
    private readonly warn: (error: unknown, message: string) => void,
  ) {}

  /** What the batch said of it once recorded; undefined when the claim was lost; rejects when it could not be written before `giveUpAt`. */
  record(item: I, giveUpAt: number): Promise<R | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, giveUpAt, resolve, reject });
      this.schedule();
    });
  }

  /** Writes what is pending (once more each, without waiting for the database to come back). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    await this.drain();
  }

  private schedule(): void {
    if (this.scheduled || this.draining || this.retryTimer !== undefined) return;
    this.scheduled = true;
    // The outcomes of one tick go together.
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      while (this.pending.length > 0 && this.retryTimer === undefined) await this.writeBatch();
    } finally {
      this.draining = false;
    }
  }

  private async writeBatch(): Promise<void> {
    const batch = this.pending.splice(0, MAX_BATCH);
    try {
      const recorded = await this.complete(batch.map(({ item }) => item));
      for (const pending of batch) pending.resolve(recorded.get(pending.item.id));
    } catch (error) {
      const now = Date.now();
      const again = batch.filter((pending) => !this.closed && now + RETRY_MS < pending.giveUpAt);
      for (const pending of batch) if (!again.includes(pending)) pending.reject(error);
      if (again.length === 0) return;
      this.warn(error, 'could not record delivery attempts; trying again');
      this.pending.unshift(...again);
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        void this.drain();
      }, RETRY_MS);
    }
  }
}
