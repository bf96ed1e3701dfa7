import type { SealedSecret } from '../../crypto/secret-box';

/**
 * A sealed value in a JSON column (events.payload): `{"k": key id, "c": ciphertext}`. mysql2
 * hands a MySQL JSON column over parsed, MariaDB (LONGTEXT) and SQLite as text.
 */
export const sealedToJson = ({ keyId, ciphertext }: SealedSecret): string => JSON.stringify({ k: keyId, c: ciphertext });

/** Throws when the column does not hold a sealed value. */
export function sealedFromJson(column: unknown): SealedSecret {
  const { k, c } = ((typeof column === 'string' ? JSON.parse(column) : column) ?? {}) as { k?: unknown; c?: unknown };
  if (typeof k !== 'string' || typeof c !== 'string') throw new Error('not a sealed value');
  return { keyId: k, ciphertext: c };
}
