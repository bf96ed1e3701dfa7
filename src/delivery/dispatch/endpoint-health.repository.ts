import { Injectable } from '@nestjs/common';
import type { SqlExecutor } from '../../database/sql-executor';
import { dateOf, sqlTimestamp } from '../../database/sql-dialect';
import { EndpointHealth, HEALTHY } from './endpoint-health';
import { DispatchDatabase } from './dispatch-database';

// The Database executor: every change is a read-modify-write under the row's lock, because
// several instances record attempts to one webhook at once.

const ms = (value: unknown): number | null => (value === null || value === undefined ? null : dateOf(value as Date | string).getTime());
const at = (time: number | null): string | null => (time === null ? null : sqlTimestamp(new Date(time)));

/** A webhook_health row (or the columns of one, aliased) as EndpointHealth. */
export function healthOfRow(row: Readonly<Record<string, unknown>>): EndpointHealth {
  return {
    failingSince: ms(row.failingSince),
    failedAttempts: Number(row.failedAttempts ?? 0),
    breakerFailures: Number(row.breakerFailures ?? 0),
    breakerOpenUntil: ms(row.breakerOpenUntil),
  };
}

/** The columns of webhook_health `h` as healthOfRow reads them. */
export const HEALTH_COLUMNS =
  'h.failing_since AS failingSince, h.failed_attempts AS failedAttempts, h.breaker_failures AS breakerFailures, h.breaker_open_until AS breakerOpenUntil';

/** The webhook_health table (docs/api.md 10.10): one row per webhook that has failed or is rate limited. */
@Injectable()
export class EndpointHealthRepository {
  constructor(private readonly db: DispatchDatabase) {}

  /**
   * Applies `change` to a webhook's health under its row's lock (the row is made when missing)
   * and returns what `change` returned. Other instances recording attempts to the same webhook
   * wait their turn.
   */
  update<T>(webhookId: number, change: (health: EndpointHealth) => { health: EndpointHealth; result: T }): Promise<T> {
    return this.db.transaction(async (tx) => {
      await tx.execute(this.db.dialect.insertUnlessExists('webhook_health', ['webhook_id'], 'webhook_id'), [webhookId]);
      const [row] = await tx.select(`SELECT ${HEALTH_COLUMNS} FROM webhook_health h WHERE h.webhook_id = ?${this.db.dialect.forUpdate}`, [
        webhookId,
      ]);
      const { health, result } = change(healthOfRow(row));
      await tx.execute(
        'UPDATE webhook_health SET failing_since = ?, failed_attempts = ?, breaker_failures = ?, breaker_open_until = ? WHERE webhook_id = ?',
        [at(health.failingSince), health.failedAttempts, health.breakerFailures, at(health.breakerOpenUntil), webhookId],
      );
      return result;
    });
  }

  /** Enabling a webhook starts its record afresh (docs/api.md 10.10), in the caller's transaction. */
  async reset(tx: SqlExecutor, webhookId: number): Promise<void> {
    await tx.execute(
      'UPDATE webhook_health SET failing_since = ?, failed_attempts = ?, breaker_failures = ?, breaker_open_until = ? WHERE webhook_id = ?',
      [at(HEALTHY.failingSince), HEALTHY.failedAttempts, HEALTHY.breakerFailures, at(HEALTHY.breakerOpenUntil), webhookId],
    );
  }

  /**
   * Takes the breaker's probe (its cool-down is over): only the claim whose update finds the
   * cool-down's end unchanged makes the probe; its claim's lease holds the breaker open
   * meanwhile, so another instance's claim does not probe too.
   */
  async takeProbe(tx: SqlExecutor, webhookId: number, now: number, leaseEndsAt: number): Promise<boolean> {
    return (
      (await tx.execute('UPDATE webhook_health SET breaker_open_until = ? WHERE webhook_id = ? AND breaker_open_until <= ?', [
        at(leaseEndsAt),
        webhookId,
        at(now),
      ])) === 1
    );
  }

  /** The rate limiter's next free slot, locked until the claim's transaction ends (the row is made when missing). */
  async lockRateSlot(tx: SqlExecutor, webhookId: number): Promise<number | null> {
    await tx.execute(this.db.dialect.insertUnlessExists('webhook_health', ['webhook_id'], 'webhook_id'), [webhookId]);
    const [row] = await tx.select<{ next: unknown }>(
      `SELECT rate_next_at AS next FROM webhook_health WHERE webhook_id = ?${this.db.dialect.forUpdate}`,
      [webhookId],
    );
    return ms(row?.next);
  }

  async setRateSlot(tx: SqlExecutor, webhookId: number, nextFreeAt: number): Promise<void> {
    await tx.execute('UPDATE webhook_health SET rate_next_at = ? WHERE webhook_id = ?', [at(nextFreeAt), webhookId]);
  }
}
