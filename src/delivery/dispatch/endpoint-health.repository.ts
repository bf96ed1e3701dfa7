import { Injectable } from '@nestjs/common';
import { Column, rowReader } from '../../database/row-reader';
import { placeholders, varying } from '../../database/sql-executor';
import { sqlTimestamp } from '../../database/sql-dialect';
import type { Transaction } from '../../database/unit-of-work';
import type { SharedState, SharedWrite } from './scheduling/claim-plan';
import { EndpointHealth, HEALTHY } from './scheduling/endpoint-health';

// The Database executor: every change is a read-modify-write under the row's lock, in the
// transaction that records the attempts (several instances record attempts to one webhook at once).
// The one owner of webhook_health's statements; the other SQL of the feature reads it through
// HealthSql (delivery/webhook-health-sql.ts).

const at = (time: number | null): string | null => (time === null ? null : sqlTimestamp(new Date(time)));

const readHealth = rowReader({
  failingSince: Column.nullable(Column.millis),
  failedAttempts: Column.int,
  breakerFailures: Column.int,
  breakerOpenUntil: Column.nullable(Column.millis),
});
const readShared = rowReader({ rateNextAt: Column.nullable(Column.millis), breakerOpenUntil: Column.nullable(Column.millis) });

const HEALTH_COLUMNS =
  'h.failing_since AS failingSince, h.failed_attempts AS failedAttempts, h.breaker_failures AS breakerFailures, h.breaker_open_until AS breakerOpenUntil';
const SET_HEALTH =
  'UPDATE webhook_health SET failing_since = ?, failed_attempts = ?, breaker_failures = ?, breaker_open_until = ? WHERE webhook_id = ?';
const healthParams = (health: EndpointHealth) => [
  at(health.failingSince),
  health.failedAttempts,
  health.breakerFailures,
  at(health.breakerOpenUntil),
];

/** The webhook_health table (docs/api.md 10.10): one row per webhook that has failed or is rate limited. */
@Injectable()
export class EndpointHealthRepository {
  /** These webhooks' health, their rows locked until the caller's transaction ends (made when missing), in id order. */
  async lock(tx: Transaction, webhookIds: readonly number[]): Promise<Map<number, EndpointHealth>> {
    const locked = new Map<number, EndpointHealth>();
    for (const webhookId of [...webhookIds].sort((a, b) => a - b)) {
      await tx.execute(tx.dialect.insertUnlessExists('webhook_health', ['webhook_id'], 'webhook_id'), [webhookId]);
      const [row] = await tx.select(`SELECT ${HEALTH_COLUMNS} FROM webhook_health h WHERE h.webhook_id = ?${tx.dialect.forUpdate}`, [
        webhookId,
      ]);
      if (row !== undefined) locked.set(webhookId, readHealth(row));
    }
    return locked;
  }

  async write(tx: Transaction, webhookId: number, health: EndpointHealth): Promise<void> {
    await tx.execute(SET_HEALTH, [...healthParams(health), webhookId]);
  }

  /** A success clears these webhooks' health (docs/api.md 10.10). */
  async clear(tx: Transaction, webhookIds: readonly number[]): Promise<void> {
    if (webhookIds.length === 0) return;
    await tx.execute(
      varying(
        `UPDATE webhook_health SET failing_since = NULL, failed_attempts = 0, breaker_failures = 0, breaker_open_until = NULL
          WHERE webhook_id IN (${placeholders(webhookIds.length)})`,
      ),
      webhookIds,
    );
  }

  /** Enabling a webhook starts its record afresh (docs/api.md 10.10), in the caller's transaction. */
  async reset(tx: Transaction, webhookId: number): Promise<void> {
    await tx.execute(SET_HEALTH, [...healthParams(HEALTHY), webhookId]);
  }

  /**
   * What a claim reads of these webhooks (their rate limiter's next free slot, their breaker),
   * their rows locked until the claim's transaction ends (made when missing), in id order: so
   * that instances claiming for one webhook take its slots and its probe in turns.
   */
  async lockShared(tx: Transaction, webhookIds: readonly number[]): Promise<Map<number, SharedState>> {
    const locked = new Map<number, SharedState>();
    for (const webhookId of [...webhookIds].sort((a, b) => a - b)) {
      await tx.execute(tx.dialect.insertUnlessExists('webhook_health', ['webhook_id'], 'webhook_id'), [webhookId]);
      const [row] = await tx.select(
        `SELECT rate_next_at AS rateNextAt, breaker_open_until AS breakerOpenUntil FROM webhook_health WHERE webhook_id = ?${tx.dialect.forUpdate}`,
        [webhookId],
      );
      if (row !== undefined) locked.set(webhookId, readShared(row));
    }
    return locked;
  }

  /** What a claim moved (lockShared first): a rate limiter's next free slot, a breaker held open by the probe's lease. */
  async writeShared(tx: Transaction, { webhookId, rateNextAt, breakerOpenUntil }: SharedWrite): Promise<void> {
    if (rateNextAt !== undefined)
      await tx.execute('UPDATE webhook_health SET rate_next_at = ? WHERE webhook_id = ?', [at(rateNextAt), webhookId]);
    if (breakerOpenUntil !== undefined) {
      await tx.execute('UPDATE webhook_health SET breaker_open_until = ? WHERE webhook_id = ?', [at(breakerOpenUntil), webhookId]);
    }
  }
}
