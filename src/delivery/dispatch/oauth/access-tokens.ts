import type { AccessToken } from './client-credentials';

/** docs/api.md 10.16: a token is reused until this long before it expires. */
export const EXPIRY_MARGIN_MS = 30_000;
/** docs/api.md 10.16: the lifetime of a token whose answer gave none. */
export const DEFAULT_LIFETIME_SECONDS = 300;
/** Webhooks whose token an instance holds; the one whose token was asked for longest ago is forgotten past this. */
const MAX_WEBHOOKS = 10_000;

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
    if (entry?.identity === identity && entry.held?.token.value === token) entry.held = undefined;
  }

  private async ask(webhookId: number, entry: Entry<F>, request: () => Promise<TokenResult<F>>): Promise<TokenResult<F>> {
    const askedAt = this.now();
    try {
      const result = await request();
      if (result.ok) {
        const lifetimeMs = (result.token.expiresInSeconds ?? DEFAULT_LIFETIME_SECONDS) * 1000;
        entry.held = { token: result.token, reusableUntil: askedAt + lifetimeMs - EXPIRY_MARGIN_MS };
      }
      return result;
    } finally {
      entry.pending = undefined;
      // A token got for settings replaced meanwhile is not held: the entry is no longer the webhook's.
      if (this.entries.get(webhookId) !== entry) entry.held = undefined;
    }
  }

  /** Kept as the webhook's entry, the most recently used last. */
  private remember(webhookId: number, entry: Entry<F>): void {
    this.entries.delete(webhookId);
    this.entries.set(webhookId, entry);
    if (this.entries.size > MAX_WEBHOOKS) this.entries.delete(this.entries.keys().next().value!);
  }
}
