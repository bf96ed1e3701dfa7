/** A live platform key, as authentication reads it (docs/api.md 10.1). */
export interface LivePlatformKey {
  readonly id: number;
  /** The organizations it may send events for; null: every organization. */
  readonly organizations: readonly number[] | null;
  /** As stored: written at most about once a minute (auth/platform-key-uses.ts). */
  readonly lastUsedAt: Date | null;
}

/** A platform key as `platform-key list` shows it (docs/api.md 8): never its token or hash. */
export interface PlatformKeyView {
  id: number;
  name: string;
  organizations: number[] | null;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface NewPlatformKey {
  readonly name: string;
  readonly tokenHash: string;
  /** null: every organization. */
  readonly organizations: readonly number[] | null;
  readonly expiresAt: Date | null;
  readonly createdAt: Date;
}

/** Which key `platform-key revoke` names: by its id, or by the token itself. */
export type PlatformKeyRef = { readonly id: number } | { readonly tokenHash: string };
