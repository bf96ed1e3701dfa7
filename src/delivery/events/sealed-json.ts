import type { SealedSecret } from '../../crypto/secret-box';

/**
 * A sealed value in a JSON column (events.payload): `{"k": key id, "c": ciphertext}`. mysql2
 * hands a MySQL JSON column over parsed, MariaDB (LONGTEXT) and SQLite as text.
 */
export const sealedToJson = ({ keyId, ciphertext }: SealedSecret): string => JSON.stringify({ k: keyId, c: ciphertext });

export function sealedFromJson(column: unknown): SealedSecret {
  const { k, c } = (typeof column === 'string' ? JSON.parse(column) : column) as { k: string; c: string };
  return { keyId: k, ciphertext: c };
}
