import type { Logger } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { RetentionTask } from './retention-task';

const DAY_MS = 24 * 3600 * 1000;
const BATCH = 500;

/** A task whose batches delete what `batches` says, in turn (an Error: that batch fails). */
class ScriptedRetention extends RetentionTask {
  readonly calls: { before: Date; batch: number }[] = [];

  constructor(
    private readonly batches: (number | Error)[],
    readonly log = { info: vi.fn(), warn: vi.fn() },
  ) {
    super('things', 7, log as unknown as Logger);
  }

  protected async pruneBatch(before: Date, batch: number): Promise<number> {
    this.calls.push({ before, batch });
    const next = this.batches.shift() ?? 0;
    if (next instanceof Error) throw next;
    return next;
  }
}

describe('RetentionTask (docs/api.md 10.8, 10.9)', () => {
  const now = new Date('2026-06-01T12:00:00Z');

  it('deletes what is older than the retention period, a batch at a time, until a batch comes back short', async () => {
    const task = new ScriptedRetention([BATCH, BATCH, 3, BATCH]);
    expect(await task.prune(now)).toBe(2 * BATCH + 3);
    expect(task.calls).toHaveLength(3);
    expect(task.calls[0]).toEqual({ before: new Date(now.getTime() - 7 * DAY_MS), batch: BATCH });
    expect(task.log.info).toHaveBeenCalledWith({ deleted: 2 * BATCH + 3 }, 'old things pruned');
  });

  it('stops after 100 full batches, leaving the rest of a long backlog to the next run', async () => {
    const task = new ScriptedRetention(Array(150).fill(BATCH));
    expect(await task.prune(now)).toBe(100 * BATCH);
    expect(task.calls).toHaveLength(100);
  });

  it('logs a failed batch without its rows, and answers what the batches before it deleted', async () => {
    const task = new ScriptedRetention([BATCH, new Error('connection lost')]);
    expect(await task.prune(now)).toBe(BATCH);
    expect(task.log.warn).toHaveBeenCalledWith({ err: { message: 'connection lost' } }, 'things retention failed');
  });

  it('logs nothing when there was nothing to delete', async () => {
    const task = new ScriptedRetention([0]);
    expect(await task.prune(now)).toBe(0);
    expect([task.log.info, task.log.warn].map((fn) => fn.mock.calls.length)).toEqual([0, 0]);
  });
});
