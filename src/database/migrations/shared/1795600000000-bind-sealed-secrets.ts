import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { SecretBinding, SecretBox } from '../../../crypto/secret-box';

const BATCH = 500;

interface SealedRow {
  id: number;
  organizationId: number;
  rowKey: number | string;
  ciphertext: string;
  keyId: string;
}

interface SealedColumn {
  table: SecretBinding['table'];
  /** The rows after `id > ?`, BATCH at a time, in id order, as SealedRow. */
  select: string;
  /** Sets ciphertext and key id of the row `id`. */
  update: string;
}

/** The same SQL on both dialects: plain identifiers, `?` placeholders. */
const SEALED_COLUMNS: readonly SealedColumn[] = [
  {
    table: 'webhooks',
    select: `SELECT w.id AS id, s.organization_id AS organizationId, w.name AS rowKey, w.secret AS ciphertext, w.secret_key_id AS keyId
               FROM webhooks w JOIN webhook_sources s ON s.id = w.source_id
              WHERE w.id > ? ORDER BY w.id LIMIT ${BATCH}`,
    update: 'UPDATE webhooks SET secret = ?, secret_key_id = ? WHERE id = ?',
  },
  {
    table: 'cards',
    select: `SELECT id, organization_id AS organizationId, id AS rowKey, provisioning_secret AS ciphertext, provisioning_secret_key_id AS keyId
               FROM cards
              WHERE provisioning_secret IS NOT NULL AND id > ? ORDER BY id LIMIT ${BATCH}`,
    update: 'UPDATE cards SET provisioning_secret = ?, provisioning_secret_key_id = ? WHERE id = ?',
  },
];

const openedOrUndefined = (open: () => string): string | undefined => {
  try {
    return open();
  } catch {
    return undefined;
  }
};

/**
 * Binds every stored secret to its row (docs/api.md 3, SecretBinding): each one sealed before
 * binding existed is opened without additional data and sealed again, under the current key,
 * with its table, organization and row as additional data. Needs the keys, so it is built
 * with the SecretBox (both dialects share it). A row already bound is left as it is (an
 * instance of the earlier code may still have been writing), and so is one that opens neither
 * way (its key is gone or it was tampered with: it could not be used before either, and
 * answers 500 where it is used, rather than keeping every instance from starting). Not reversible: the code before it cannot open
 * a bound secret.
 */
export function bindSealedSecrets(secrets: SecretBox) {
  return class BindSealedSecrets1795600000000 implements MigrationInterface {
    name = 'BindSealedSecrets1795600000000';

    async up(db: QueryRunner): Promise<void> {
      for (const { table, select, update } of SEALED_COLUMNS) {
        for (let after = 0; ;) {
          const rows: SealedRow[] = await db.query(select, [after]);
          for (const { id, organizationId, rowKey, ciphertext, keyId } of rows) {
            const binding: SecretBinding = { table, organizationId: Number(organizationId), row: rowKey };
            if (openedOrUndefined(() => secrets.open({ ciphertext, keyId }, binding)) !== undefined) continue;
            const plaintext = openedOrUndefined(() => secrets.openUnbound({ ciphertext, keyId }));
            if (plaintext === undefined) continue;
            const sealed = secrets.seal(plaintext, binding);
            await db.query(update, [sealed.ciphertext, sealed.keyId, id]);
          }
          if (rows.length < BATCH) break;
          after = rows[rows.length - 1].id;
        }
      }
    }

    async down(): Promise<void> {
      throw new Error('BindSealedSecrets1795600000000 cannot be reverted: earlier code cannot open bound secrets');
    }
  };
}
