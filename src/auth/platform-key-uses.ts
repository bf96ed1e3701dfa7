import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { IdentityAccess } from '../identity/identity-access';
import { PINO } from '../logging/pino.provider';

/** How stale a key's stored last use may grow before a use writes it again. */
export const LAST_USE_INTERVAL_MS = 60_000;
/** Past this many keys remembered, the ones written longer than an interval ago are forgotten. */
const SWEEP_ABOVE = 1_000;

/**
 * Which uses of a platform key are written as its last use. A write per event would put an
 * UPDATE of one hot row on every ingest (and make concurrent requests of one key queue on its
 * row lock), for a figure an operator reads to the minute. So a use is written only when the
 * stored time (read anyway by the authentication's lookup) is missing or over a minute old,
 * and this instance has not written that key within the minute: at most one UPDATE per key per
 * minute per instance, usually one per minute in all (the others then read a fresh time). A
 * key's first use is written at once.
 */
export class LastUseThrottle {
  /** Key id → when this instance last chose to write it (epoch ms). */
  private readonly written = new Map<number, number>();

  constructor(private readonly intervalMs = LAST_USE_INTERVAL_MS) {}

  /** True when this use, at `now`, is to be written; it then counts as written. */
  shouldWrite(keyId: number, stored: Date | null, now: number): boolean {
    if (stored !== null && now - stored.getTime() < this.intervalMs) return false;
    const last = this.written.get(keyId);
    if (last !== undefined && now - last < this.intervalMs) return false;
    this.written.set(keyId, now);
    if (this.written.size > SWEEP_ABOVE) {
      for (const [id, at] of this.written) if (now - at >= this.intervalMs) this.written.delete(id);
    }
    return true;
  }
}

/**
 * Records the last use of platform keys (docs/api.md 8, `platform-key list`) through the
 * throttle, without holding up the request: the write is not awaited, and a failed one is
 * logged and never fails the request it came with.
 */
@Injectable()
export class PlatformKeyUses {
  private readonly throttle = new LastUseThrottle();

  constructor(
    private readonly identities: IdentityAccess,
    @Inject(PINO) private readonly logger: Logger,
  ) {}

  note(keyId: number, storedLastUsedAt: Date | null): void {
    const now = new Date();
    if (!this.throttle.shouldWrite(keyId, storedLastUsedAt, now.getTime())) return;
    this.identities
      .recordPlatformKeyUse(keyId, now)
      .catch((error: unknown) => this.logger.warn({ err: error, keyId }, 'the last use of a platform key was not recorded'));
  }
}
