import { Injectable } from '@nestjs/common';
import { SealedSecret } from '../crypto/secret-box';
import { Database } from '../database/database';
import { Column, rowReader } from '../database/row-reader';
import type { Transaction } from '../database/unit-of-work';
import { CardStatus } from './entities/card.entity';

// The Database executor: provisioning is a measured hot path (prepared statement, only the needed columns).

const readProvisioning = rowReader({
  cardId: Column.int,
  organizationId: Column.int,
  issuerId: Column.nullable(Column.int),
  provisioningId: Column.nullable(Column.text),
  ciphertext: Column.nullable(Column.text),
  keyId: Column.nullable(Column.text),
});

/** The newest card a wallet may provision, as stored; issuer and credentials may be absent. */
export type ProvisioningRow = ReturnType<typeof readProvisioning>;

export interface NewCard {
  userId: number;
  organizationId: number;
  status: CardStatus;
  issuer?: { issuerId: number; provisioningId: string };
}

/** Statuses in which a card can still be added to a wallet. */
const PROVISIONABLE: readonly CardStatus[] = ['active', 'frozen'];

@Injectable()
export class CardsRepository {
  constructor(private readonly db: Database) {}

  /** The user's newest card in a provisionable status: one statement, only the columns needed. */
  async findNewestProvisionable(userId: number): Promise<ProvisioningRow | undefined> {
    const [row] = await this.db.select(
      `SELECT id AS cardId, organization_id AS organizationId, issuer_id AS issuerId, provisioning_id AS provisioningId,
              provisioning_secret AS ciphertext, provisioning_secret_key_id AS keyId
         FROM cards
        WHERE user_id = ? AND status IN (${PROVISIONABLE.map(() => '?').join(', ')})
        ORDER BY created_at DESC, id DESC
        LIMIT 1`,
      [userId, ...PROVISIONABLE],
    );
    return row && readProvisioning(row);
  }

  createIssuer(name: string): Promise<number> {
    return this.db.insert('INSERT INTO issuers (name) VALUES (?)', [name]);
  }

  async issuerExists(id: number): Promise<boolean> {
    return (await this.db.select('SELECT 1 AS one FROM issuers WHERE id = ?', [id])).length > 0;
  }

  /** The new card's id (its provisioning secret is sealed for that id: setProvisioningSecret, in the same transaction). */
  insertCard(tx: Transaction, { userId, organizationId, status, issuer }: NewCard): Promise<number> {
    return tx.insert('INSERT INTO cards (user_id, organization_id, status, issuer_id, provisioning_id) VALUES (?, ?, ?, ?, ?)', [
      userId,
      organizationId,
      status,
      issuer?.issuerId ?? null,
      issuer?.provisioningId ?? null,
    ]);
  }

  async setProvisioningSecret(tx: Transaction, cardId: number, { ciphertext, keyId }: SealedSecret): Promise<void> {
    await tx.execute('UPDATE cards SET provisioning_secret = ?, provisioning_secret_key_id = ? WHERE id = ?', [ciphertext, keyId, cardId]);
  }

  /** In the caller's transaction (its event is written in the same one): the card's organization, or undefined when there is no such card. */
  async setStatus(tx: Transaction, id: number, status: CardStatus): Promise<number | undefined> {
    if ((await tx.execute('UPDATE cards SET status = ? WHERE id = ?', [status, id])) === 0) return undefined;
    const [card] = await tx.select('SELECT organization_id AS organizationId FROM cards WHERE id = ?', [id]);
    return card === undefined ? undefined : Column.int(card.organizationId);
  }
}
