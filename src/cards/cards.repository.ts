import { Injectable } from '@nestjs/common';
import { SealedSecret } from '../crypto/secret-box';
import { Database } from '../database/database';
import { Column, rowReader } from '../database/row-reader';
import type { Transaction } from '../database/unit-of-work';
import { CardNetwork, CardStatus } from './entities/card.entity';
import type { CardOnFile } from './processors/processor';
import { IssuerKind, PROCESSORS } from './processors/processors';

// The Database executor: provisioning is a measured hot path (prepared statements, only the needed columns).

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

const readPushable = rowReader({
  cardId: Column.int,
  organizationId: Column.int,
  userId: Column.int,
  issuerId: Column.nullable(Column.int),
  issuerKind: Column.nullable(Column.text),
  baseUrl: Column.nullable(Column.text),
  credentials: Column.nullable(Column.text),
  credentialsKeyId: Column.nullable(Column.text),
  processorToken: Column.nullable(Column.text),
  title: Column.nullable(Column.text),
  cardholderName: Column.nullable(Column.text),
  primaryAccountSuffix: Column.nullable(Column.text),
  network: Column.nullable(Column.member<CardNetwork>()),
});

/** A card of the user in a provisionable status, with its issuer as stored: either may lack what a push needs. */
export type PushableRow = ReturnType<typeof readPushable>;

const readEntry = rowReader({
  cardId: Column.int,
  title: Column.text,
  cardholderName: Column.text,
  primaryAccountSuffix: Column.text,
  network: Column.member<CardNetwork>(),
});

/** A card the user can push to a wallet, as the entries list shows it (docs/api.md 6.1). */
export type EntryRow = ReturnType<typeof readEntry>;

export interface NewIssuer {
  name: string;
  kind: IssuerKind;
  /** A processor issuer's; its credentials are sealed for its id: setIssuerCredentials, in the same transaction. */
  baseUrl?: string;
}

export interface NewCard {
  userId: number;
  organizationId: number;
  status: CardStatus;
  issuerId?: number;
  provisioningId?: string;
  /** The card at its issuer's processor (docs/api.md 6.1). */
  processor?: CardOnFile;
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

  /** The user's card `cardId` when it is in a provisionable status, with its issuer: one statement. */
  async findPushable(userId: number, cardId: number): Promise<PushableRow | undefined> {
    const [row] = await this.db.select(
      `SELECT c.id AS cardId, c.organization_id AS organizationId, c.user_id AS userId, c.issuer_id AS issuerId, i.kind AS issuerKind,
              i.base_url AS baseUrl, i.credentials AS credentials, i.credentials_key_id AS credentialsKeyId,
              c.processor_token AS processorToken, c.title AS title, c.cardholder_name AS cardholderName,
              c.primary_account_suffix AS primaryAccountSuffix, c.network AS network
         FROM cards c LEFT JOIN issuers i ON i.id = c.issuer_id
        WHERE c.id = ? AND c.user_id = ? AND c.status IN (${PROVISIONABLE.map(() => '?').join(', ')})`,
      [cardId, userId, ...PROVISIONABLE],
    );
    return row && readPushable(row);
  }

  /** The user's provisionable cards that a processor issuer knows (a processor token), newest first. */
  async listPushable(userId: number): Promise<EntryRow[]> {
    const kinds = Object.keys(PROCESSORS);
    const rows = await this.db.select(
      `SELECT c.id AS cardId, c.title AS title, c.cardholder_name AS cardholderName,
              c.primary_account_suffix AS primaryAccountSuffix, c.network AS network
         FROM cards c JOIN issuers i ON i.id = c.issuer_id
        WHERE c.user_id = ? AND c.status IN (${PROVISIONABLE.map(() => '?').join(', ')})
          AND c.processor_token IS NOT NULL AND i.kind IN (${kinds.map(() => '?').join(', ')})
        ORDER BY c.created_at DESC, c.id DESC`,
      [userId, ...PROVISIONABLE, ...kinds],
    );
    return rows.map(readEntry);
  }

  createIssuer(tx: Transaction, { name, kind, baseUrl }: NewIssuer): Promise<number> {
    return tx.insert('INSERT INTO issuers (name, kind, base_url) VALUES (?, ?, ?)', [name, kind, baseUrl ?? null]);
  }

  async setIssuerCredentials(tx: Transaction, issuerId: number, { ciphertext, keyId }: SealedSecret): Promise<void> {
    await tx.execute('UPDATE issuers SET credentials = ?, credentials_key_id = ? WHERE id = ?', [ciphertext, keyId, issuerId]);
  }

  /** The issuer's kind, or undefined when there is no such issuer. */
  async findIssuerKind(id: number): Promise<string | undefined> {
    const [row] = await this.db.select('SELECT kind FROM issuers WHERE id = ?', [id]);
    return row === undefined ? undefined : Column.text(row.kind);
  }

  /** The new card's id (its provisioning secret is sealed for that id: setProvisioningSecret, in the same transaction). */
  insertCard(tx: Transaction, { userId, organizationId, status, issuerId, provisioningId, processor }: NewCard): Promise<number> {
    return tx.insert(
      `INSERT INTO cards (user_id, organization_id, status, issuer_id, provisioning_id,
                          processor_token, title, cardholder_name, primary_account_suffix, network)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        userId,
        organizationId,
        status,
        issuerId ?? null,
        provisioningId ?? null,
        processor?.processorToken ?? null,
        processor?.title ?? null,
        processor?.cardholderName ?? null,
        processor?.primaryAccountSuffix ?? null,
        processor?.network ?? null,
      ],
    );
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
