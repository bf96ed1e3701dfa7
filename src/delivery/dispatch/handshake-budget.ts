import { createPrivateKey, sign } from 'node:crypto';

/*
 * docs/api.md 10.10: what the TLS handshakes to one receiver may cost this instance's event loop.
 * A receiver that keeps its connections alive, or resumes TLS sessions, costs a full handshake
 * once; one that closes every connection and refuses resumption makes every attempt pay one (the
 * key exchange, its chain verified, and the client certificate's signature: up to ~4 ms with an
 * RSA-4096 key). Past its budget, its next connection waits, as a slow receiver's attempts do,
 * and no other receiver pays for it.
 */

/** CPU a receiver's full handshakes may take, in ms per second (5 % of a core). */
export const HANDSHAKE_BUDGET_MS_PER_SECOND = 50;
/** What a receiver may spend at once before its connections wait: a pool's first burst of connections. */
export const HANDSHAKE_BURST_MS = 100;
/** A full handshake's own work beside the client certificate's signature (X25519 and the receiver's chain verified). */
export const FULL_HANDSHAKE_MS = 1;

/** One receiver's budget: a bucket of CPU ms that refills at HANDSHAKE_BUDGET_MS_PER_SECOND. Pure but for the clock. */
export class HandshakeBudget {
  /** CPU ms it may still spend at once; below 0, what it owes. */
  private balanceMs = HANDSHAKE_BURST_MS;
  private at: number;

  constructor(private readonly now: () => number = () => performance.now()) {
    this.at = now();
  }

  /** How long a new connection waits before its handshake: 0 while the receiver owes nothing. */
  waitMs(): number {
    this.refill();
    return this.balanceMs >= 0 ? 0 : Math.ceil((-this.balanceMs / HANDSHAKE_BUDGET_MS_PER_SECOND) * 1000);
  }

  /** A handshake made that cost about `ms` of CPU. */
  charge(ms: number): void {
    this.refill();
    this.balanceMs -= ms;
  }

  private refill(): void {
    const now = this.now();
    this.balanceMs = Math.min(HANDSHAKE_BURST_MS, this.balanceMs + ((now - this.at) / 1000) * HANDSHAKE_BUDGET_MS_PER_SECOND);
    this.at = now;
  }
}

/** What one signature with a client certificate's key costs this process, in CPU ms: measured once, when its pool is made. */
export function signingCostMs(privateKeyPem: string): number {
  const key = createPrivateKey(privateKeyPem);
  const started = process.cpuUsage();
  sign('sha256', Buffer.alloc(32), key);
  const { user, system } = process.cpuUsage(started);
  return (user + system) / 1000;
}
