import type { AccessToken } from './client-credentials';

/** docs/api.md 10.16: a token is reused until this long before it expires. */
export const EXPIRY_MARGIN_MS = 30_000;
/** docs/api.md 10.16: the lifetime of a token whose answer gave none. */
export const DEFAULT_LIFETIME_SECONDS = 300;
/**
 * What an instance's held tokens may take, in bytes (a token is up to 4 096 characters: at least
 * ~900 webhooks of the longest, ~5 000 of a typical JWT); the webhook whose token was asked for
 * longest ago is forgotten past this.
 */
export const MAX_HELD_BYTES = 4 * 1024 * 1024;
/** What an entry costs beside its identity and token: the map's slot, the objects, the promise. */
const ENTRY_BYTES = 200;

/** What a token request came to: a token, or a failure of type F (never held: the next attempt asks again). */
export type TokenResult<F> = { readonly ok: true; readonly token: AccessToken } | { readonly ok: false; readonly failure: F };

/** A webhook's token as this instance holds it, for one identity of its settings. */
interface Entry<F> {
  readonly identity: string;
  held?: { readonly token: AccessToken; readonly reusableUntil: number };
  /** The token request on its way: every attempt that needs a token meanwhile waits for it. */
  pending?: Promise<TokenResult<F>>;
}

/**
 * The access tokens of one instance (docs/api.md 10.16), by webhook: a token is reused until
 * EXPIRY_MARGIN_MS before its lifetime (counted from when it was asked for) ends; at most one
 * token request at a time per webhook, which every attempt that needs a token meanwhile shares;
 * a token the receiver refused is dropped. `identity` names the settings a token was got with
 * (the webhook and its auth): a token is never used under another one, so a changed auth asks
 * again. Pure but for the clock, which a test passes in.
 */
export class AccessTokens<F> {
  private readonly entries = new Map<number, Entry<F>>();
  /** What the entries take (weightOf): at most MAX_HELD_BYTES. */
  private bytes = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The token to use now: the one held while it is fresh, else the request on its way, else `request`'s. */
  get(webhookId: number, identity: string, request: () => Promise<TokenResult<F>>): Promise<TokenResult<F>> {
    const entry = this.entries.get(webhookId);
    if (entry?.identity === identity) {
      if (entry.held !== undefined && this.now() < entry.held.reusableUntil) return Promise.resolve({ ok: true, token: entry.held.token });
      if (entry.pending !== undefined) return entry.pending;
    }
    const fresh: Entry<F> = { identity };
    fresh.pending = this.ask(webhookId, fresh, request);
    this.remember(webhookId, fresh);
    return fresh.pending;
  }

  /** The receiver refused `token` (a 401): the next attempt asks for another, unless one already replaced it. */
  drop(webhookId: number, identity: string, token: string): void {
    const entry = this.entries.get(webhookId);
    if (entry?.identity === identity && entry.held?.token.value === token) this.hold(entry, undefined);
  }

  /** What the held entries take now, in bytes (a test's view of the bound). */
  get heldBytes(): number {
    return this.bytes;
  }

  private async ask(webhookId: number, entry: Entry<F>, request: () => Promise<TokenResult<F>>): Promise<TokenResult<F>> {
    const askedAt = this.now();
    try {
      const result = await request();
      // A token got for settings replaced (or forgotten) meanwhile is not held: the entry is no longer the webhook's.
      if (result.ok && this.entries.get(webhookId) === entry) {
        const lifetimeMs = (result.token.expiresInSeconds ?? DEFAULT_LIFETIME_SECONDS) * 1000;
        this.hold(entry, { token: result.token, reusableUntil: askedAt + lifetimeMs - EXPIRY_MARGIN_MS });
        this.forgetPastBound();
      }
      return result;
    } finally {
      entry.pending = undefined;
    }
  }

  /** Kept as the webhook's entry, the most recently used last. */
  private remember(webhookId: number, entry: Entry<F>): void {
    const replaced = this.entries.get(webhookId);
    if (replaced !== undefined) this.forget(webhookId, replaced);
    this.entries.set(webhookId, entry);
    this.bytes += weightOf(entry);
    this.forgetPastBound();
  }

  /** An entry of the map holds `held` now. */
  private hold(entry: Entry<F>, held: Entry<F>['held']): void {
    this.bytes -= weightOf(entry);
    entry.held = held;
    this.bytes += weightOf(entry);
  }

  private forget(webhookId: number, entry: Entry<F>): void {
    this.entries.delete(webhookId);
    this.bytes -= weightOf(entry);
  }

  /** The entries asked for longest ago forgotten until the rest fit MAX_HELD_BYTES. */
  private forgetPastBound(): void {
    for (const [webhookId, entry] of this.entries) {
      if (this.bytes <= MAX_HELD_BYTES) return;
      this.forget(webhookId, entry);
    }
  }
}

/** What an entry takes, in bytes: its identity, its token and the rest (strings counted as one byte a character: both are ASCII). */
function weightOf(entry: Entry<unknown>): number {
  return ENTRY_BYTES + entry.identity.length + (entry.held?.token.value.length ?? 0);
}
